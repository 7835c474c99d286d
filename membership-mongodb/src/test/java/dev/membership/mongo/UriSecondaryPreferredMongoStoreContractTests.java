package dev.membership.mongo;

import com.mongodb.MongoClientSettings;
import com.mongodb.ReadPreference;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The contract on the server named by MEMBERSHIP_TEST_MONGO_URI through a client that
 * reads from secondaries, as many production URIs say: the store must still read from the
 * primary. On a replica set with lagging secondaries, a store that followed the client
 * would fail the tests that read what it just wrote.
 */
@EnabledIfEnvironmentVariable(named = "MEMBERSHIP_TEST_MONGO_URI", matches = ".+")
class UriSecondaryPreferredMongoStoreContractTests extends UriMongoStoreContractTests {

	@Override
	protected MongoClientSettings clientSettings(MongoClientSettings.Builder fromUri) {
		return fromUri.readPreference(ReadPreference.secondaryPreferred()).build();
	}

}
