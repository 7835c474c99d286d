package dev.membership.store.mongo;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.membership.store.AbstractMembershipStoreContractTests;
import dev.membership.store.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;

class EmbeddedMongoStoreContractTests extends AbstractMembershipStoreContractTests {

	private static EmbeddedMongo mongo;

	private static final List<MongoClient> clients = new ArrayList<>();

	@BeforeAll
	static void startServer() {
		mongo = new EmbeddedMongo();
	}

	@AfterAll
	static void stopServer() {
		clients.forEach(MongoClient::close);
		mongo.close();
	}

	@Override
	protected MembershipStore createStore(String namespace) {
		MongoClient client = mongo.newClient();
		clients.add(client);
		return MongoStores.create(client.getDatabase("membership"), namespace);
	}

}
