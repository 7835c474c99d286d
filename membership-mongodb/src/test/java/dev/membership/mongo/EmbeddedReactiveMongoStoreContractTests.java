package dev.membership.mongo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.reactivestreams.client.MongoClient;
import com.mongodb.reactivestreams.client.MongoClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.MembershipStore;
import dev.membership.test.MembershipStoreContract;
import dev.membership.testsupport.EmbeddedMongo;

/**
 * The same contract, through the reactive driver: what a reactive application's node
 * uses.
 */
class EmbeddedReactiveMongoStoreContractTests extends MembershipStoreContract {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final List<MongoClient> clients = new ArrayList<>();

	@AfterAll
	static void closeClients() {
		clients.forEach(MongoClient::close);
	}

	@Override
	protected MembershipStore createStore(String namespace) {
		MongoClient client = MongoClients.create(mongo.uri());
		clients.add(client);
		return new ReactiveMongoMembershipStore(client.getDatabase("membership"),
				MongoStoreSettings.defaults()
					.withCollections(namespace + "_nodes", namespace + "_leases")
					.withOperationTimeout(Duration.ofSeconds(2)));
	}

}
