package dev.membership.mongo;

import java.util.ArrayList;
import java.util.List;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.junit.jupiter.api.AfterAll;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;

import dev.membership.spi.MembershipStore;
import dev.membership.test.MembershipStoreContract;

/** The contract on a real MongoDB replica set; skipped where no Docker engine runs. */
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersMongoStoreContractTests extends MembershipStoreContract {

	@Container
	static final MongoDBContainer mongo = new MongoDBContainer("mongo:7.0");

	private static final List<MongoClient> clients = new ArrayList<>();

	@AfterAll
	static void closeClients() {
		clients.forEach(MongoClient::close);
	}

	@Override
	protected MembershipStore createStore(String namespace) {
		MongoClient client = MongoClients.create(mongo.getReplicaSetUrl("membership"));
		clients.add(client);
		return MongoStores.create(client.getDatabase("membership"), namespace);
	}

}
