package dev.membership.mongo;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import dev.membership.spi.MembershipStore;
import dev.membership.test.MembershipStoreContract;

/**
 * The contract on any MongoDB named by MEMBERSHIP_TEST_MONGO_URI (database from the URI,
 * else "membership_test").
 */
@EnabledIfEnvironmentVariable(named = "MEMBERSHIP_TEST_MONGO_URI", matches = ".+")
class UriMongoStoreContractTests extends MembershipStoreContract {

	private static final List<MongoClient> clients = new ArrayList<>();

	@AfterAll
	static void closeClients() {
		clients.forEach(MongoClient::close);
	}

	@Override
	protected MembershipStore createStore(String namespace) {
		ConnectionString uri = new ConnectionString(System.getenv("MEMBERSHIP_TEST_MONGO_URI"));
		MongoClient client = MongoClients
			.create(clientSettings(MongoClientSettings.builder().applyConnectionString(uri)));
		clients.add(client);
		String database = (uri.getDatabase() != null) ? uri.getDatabase() : "membership_test";
		return MongoStores.create(client.getDatabase(database), namespace);
	}

	/**
	 * The client as the URI says; a variant changes what an application's client may say.
	 */
	protected MongoClientSettings clientSettings(MongoClientSettings.Builder fromUri) {
		return fromUri.build();
	}

}
