package dev.membership.mongo;

import java.time.Duration;

import com.mongodb.ConnectionString;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On the MongoDB named by MEMBERSHIP_TEST_MONGO_URI: a changed
 * {@code dead-node-retention} reaches the TTL index that an earlier start created (the
 * stand-in has neither the conflict nor collMod; {@code TtlIndexTests} gives its
 * answers).
 */
@EnabledIfEnvironmentVariable(named = "MEMBERSHIP_TEST_MONGO_URI", matches = ".+")
class UriTtlIndexTests {

	@Test
	void aChangedRetentionReachesTheExistingTtlIndex() {
		ConnectionString uri = new ConnectionString(System.getenv("MEMBERSHIP_TEST_MONGO_URI"));
		try (MongoClient client = MongoClients.create(uri)) {
			MongoDatabase database = client
				.getDatabase((uri.getDatabase() != null) ? uri.getDatabase() : "membership_test");
			String nodes = "ttl" + System.nanoTime() % 100000 + "_nodes";
			try {
				start(database, nodes, Duration.ofMinutes(10));
				assertThat(ttlOf(database, nodes)).isEqualTo(600);
				start(database, nodes, Duration.ofMinutes(5));
				assertThat(ttlOf(database, nodes)).isEqualTo(300);
			}
			finally {
				database.getCollection(nodes).drop();
			}
		}
	}

	private static void start(MongoDatabase database, String nodes, Duration retention) {
		new MongoMembershipStore(database, new MongoStoreSettings(nodes, nodes + "_leases", Duration.ofSeconds(5),
				WriteConcern.MAJORITY, retention))
			.initialize();
	}

	private static long ttlOf(MongoDatabase database, String nodes) {
		for (Document index : database.getCollection(nodes).listIndexes()) {
			if ("membership_node_ttl".equals(index.getString("name"))) {
				return index.get("expireAfterSeconds", Number.class).longValue();
			}
		}
		throw new AssertionError("no TTL index on " + nodes);
	}

}
