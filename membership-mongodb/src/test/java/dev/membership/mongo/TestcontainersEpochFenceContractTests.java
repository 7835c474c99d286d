package dev.membership.mongo;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.mongodb.MongoDBContainer;

/**
 * The fencing rule on a real MongoDB replica set; skipped where no Docker engine runs.
 */
@Testcontainers(disabledWithoutDocker = true)
class TestcontainersEpochFenceContractTests extends AbstractEpochFenceContractTests {

	@Container
	static final MongoDBContainer mongo = new MongoDBContainer("mongo:7.0");

	@Override
	protected MongoClient newClient() {
		return MongoClients.create(mongo.getReplicaSetUrl("fencing"));
	}

	@Override
	protected String databaseName() {
		return "fencing";
	}

}
