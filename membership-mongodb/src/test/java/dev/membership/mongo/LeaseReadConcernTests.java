package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import org.bson.BsonDocument;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interval's read of the leases takes majority-committed data (a lease a failover
 * could roll back must not start anything); the read after a lost race takes the
 * primary's latest (local): a majority read shows the winner's write only once a majority
 * has it, and until then the loser would read the old, expired lease and try again and
 * again. The stand-in ignores read concerns, so what each find asked for is read from the
 * driver's events.
 */
class LeaseReadConcernTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final List<BsonDocument> finds = new CopyOnWriteArrayList<>();

	private MongoClientSettings recording() {
		return MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(mongo.uri()))
			.addCommandListener(new CommandListener() {
				@Override
				public void commandStarted(CommandStartedEvent event) {
					if (event.getCommandName().equals("find")) {
						LeaseReadConcernTests.this.finds.add(event.getCommand().clone());
					}
				}
			})
			.build();
	}

	@Test
	void theBlockingStore() {
		try (com.mongodb.client.MongoClient client = com.mongodb.client.MongoClients.create(recording())) {
			check(MongoStores.create(client.getDatabase("concerns"), "blocking"));
		}
	}

	@Test
	void theReactiveStore() {
		try (com.mongodb.reactivestreams.client.MongoClient client = com.mongodb.reactivestreams.client.MongoClients
			.create(recording())) {
			check(new ReactiveMongoMembershipStore(client.getDatabase("concerns"),
					MongoStoreSettings.defaults()
						.withCollections("reactive_nodes", "reactive_leases")
						.withOperationTimeout(Duration.ofSeconds(2))));
		}
	}

	private void check(MembershipStore store) {
		Instant now = store.serverTime().orElseThrow();
		store.tryAcquire("default", new Holder("a", "a-1", "x"), now, now.plusSeconds(15));
		this.finds.clear();
		assertThat(store.findLease("default")).isPresent();
		assertThat(store.findLeases(List.of("default"), 0).leases()).containsKey("default");
		assertThat(this.finds).hasSize(2);
		assertThat(level(this.finds.get(0))).as("after a lost race").isEqualTo("local");
		assertThat(level(this.finds.get(1))).as("the interval's read").isEqualTo("majority");
	}

	private static String level(BsonDocument find) {
		return find.getDocument("readConcern").getString("level").getValue();
	}

}
