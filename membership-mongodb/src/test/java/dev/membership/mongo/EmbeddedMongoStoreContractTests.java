package dev.membership.mongo;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.MembershipStore;
import dev.membership.test.MembershipStoreContract;
import dev.membership.testsupport.EmbeddedMongo;

class EmbeddedMongoStoreContractTests extends MembershipStoreContract {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final List<MongoClient> clients = new ArrayList<>();

	@AfterAll
	static void closeClients() {
		clients.forEach(MongoClient::close);
	}

	@Override
	protected MembershipStore createStore(String namespace) {
		MongoClient client = mongo.newClient();
		clients.add(client);
		return MongoStores.create(client.getDatabase("membership"), namespace);
	}

}
