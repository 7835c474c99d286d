package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reads every interval fetch all they find in one round trip: a first batch holds at
 * most 101 documents unless the query says more, and a keeper of 150 members, or a node
 * placed on 150 partitions, would pay a getMore every interval. The node read learns its
 * size from the last read, so only the very first read of a large roster may pay one. The
 * stand-in answers whole batches whatever is asked, so what each find asked for is read
 * from the driver's events.
 */
class BatchSizeTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	/**
	 * The batch size each find asked for, by collection (0: the server's default, 101 in
	 * the first batch).
	 */
	private final List<String> finds = new java.util.concurrent.CopyOnWriteArrayList<>();

	private MongoClientSettings counting() {
		return MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(mongo.uri()))
			.addCommandListener(new CommandListener() {
				@Override
				public void commandStarted(CommandStartedEvent event) {
					if (event.getCommandName().equals("find")) {
						BatchSizeTests.this.finds.add(event.getCommand().getString("find").getValue() + ":"
								+ event.getCommand().getInt32("batchSize", new org.bson.BsonInt32(0)).getValue());
					}
				}
			})
			.build();
	}

	@Test
	void theBlockingStoreReadsAHundredAndFiftyLeasesAndNodesInOneRoundTrip() {
		try (com.mongodb.client.MongoClient client = com.mongodb.client.MongoClients.create(counting())) {
			check(MongoStores.create(client.getDatabase("batches"), "blocking"));
		}
	}

	@Test
	void theReactiveStoreToo() {
		try (com.mongodb.reactivestreams.client.MongoClient client = com.mongodb.reactivestreams.client.MongoClients
			.create(counting())) {
			check(new ReactiveMongoMembershipStore(client.getDatabase("batches"),
					MongoStoreSettings.defaults()
						.withCollections("reactive_nodes", "reactive_leases")
						.withOperationTimeout(Duration.ofSeconds(2))));
		}
	}

	private void check(MembershipStore store) {
		Instant now = store.serverTime().orElseThrow();
		List<String> partitions = new ArrayList<>();
		Holder holder = new Holder("node-a", "a-1", "127.0.0.1:1001");
		for (int p = 0; p < 150; p++) {
			partitions.add("tenants#" + p);
			store.tryAcquire("tenants#" + p, holder, now, now.plusSeconds(15));
			store.heartbeat(
					new NodeRecord("node-" + p, "i-" + p, "127.0.0.1:" + (2000 + p), now, null, List.of("default")));
		}
		assertThat(batchAskedFor(() -> assertThat(store.findLeases(partitions, 0).leases()).hasSize(150)))
			.as("the leases and the roster in the first batch, and the end")
			.isGreaterThan(151);
		// the first read of a roster it has never seen may pay a getMore
		store.findNodes();
		assertThat(batchAskedFor(() -> assertThat(store.findNodes()).hasSize(150))).as("every node in the first batch")
			.isGreaterThan(150);
	}

	/** The batch size the one find that {@code read} sends asks for. */
	private int batchAskedFor(Runnable read) {
		this.finds.clear();
		read.run();
		assertThat(this.finds).hasSize(1);
		return Integer.parseInt(this.finds.get(0).substring(this.finds.get(0).indexOf(':') + 1));
	}

}
