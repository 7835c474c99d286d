package dev.membership.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The fencing rule on any MongoDB named by MEMBERSHIP_TEST_MONGO_URI (database from the
 * URI, else "membership_test").
 */
@EnabledIfEnvironmentVariable(named = "MEMBERSHIP_TEST_MONGO_URI", matches = ".+")
class UriEpochFenceContractTests extends AbstractEpochFenceContractTests {

	private static ConnectionString uri() {
		return new ConnectionString(System.getenv("MEMBERSHIP_TEST_MONGO_URI"));
	}

	@Override
	protected MongoClient newClient() {
		return MongoClients.create(uri());
	}

	@Override
	protected String databaseName() {
		return (uri().getDatabase() != null) ? uri().getDatabase() : "membership_test";
	}

}
