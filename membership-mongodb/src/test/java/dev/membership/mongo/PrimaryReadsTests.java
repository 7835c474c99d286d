package dev.membership.mongo;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.Updates;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import org.bson.BsonDocument;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

import dev.membership.liveness.Member;
import dev.membership.spi.Holder;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * Every membership read, and {@code EpochFence}'s read-back of a newer epoch, goes to the
 * primary even when the application's client reads from secondaries
 * ({@code readPreference=secondaryPreferred}, common in production URIs): a lagging
 * secondary would show old heartbeats and leases. The driver sends a non-primary
 * preference with each command (the stand-in ignores it), so what each command asked for
 * is recorded from the driver's own command events.
 */
class PrimaryReadsTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final List<Sent> sent = new CopyOnWriteArrayList<>();

	private record Sent(String command, String collection, String readPreference) {

		static Sent of(CommandStartedEvent event) {
			BsonDocument command = event.getCommand();
			BsonDocument preference = command.getDocument("$readPreference", null);
			String target = command.isString(event.getCommandName())
					? command.getString(event.getCommandName()).getValue() : null;
			return new Sent(event.getCommandName(), target,
					(preference != null) ? preference.getString("mode").getValue() : null);
		}

		boolean primary() {
			return this.readPreference == null || this.readPreference.equals("primary");
		}

	}

	private MongoClientSettings secondaryPreferred() {
		return MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(mongo.uri() + "/?readPreference=secondaryPreferred"))
			.addCommandListener(new CommandListener() {
				@Override
				public void commandStarted(CommandStartedEvent event) {
					PrimaryReadsTests.this.sent.add(Sent.of(event));
				}
			})
			.build();
	}

	@Test
	void theBlockingStoreAndItsKeysReadFromThePrimary() {
		try (MongoClient client = MongoClients.create(secondaryPreferred())) {
			MongoDatabase database = client.getDatabase("membership");
			assertTheClientReadsFromSecondaries(() -> database.getCollection("application").find().first());
			exercise(MongoStores.create(database, "blocking"));
			new MongoBroadcastKeys(database, "blocking_keys", Duration.ofSeconds(2)).keyring();
		}
		assertEveryCommandAskedForThePrimary("find", "findAndModify", "update", "delete", "hello", "createIndexes");
	}

	@Test
	void theReactiveStoreAndItsKeysReadFromThePrimary() {
		try (com.mongodb.reactivestreams.client.MongoClient client = com.mongodb.reactivestreams.client.MongoClients
			.create(secondaryPreferred())) {
			com.mongodb.reactivestreams.client.MongoDatabase database = client.getDatabase("membership");
			assertTheClientReadsFromSecondaries(
					() -> reactor.core.publisher.Mono.from(database.getCollection("application").find().first())
						.block(Duration.ofSeconds(5)));
			exercise(new ReactiveMongoMembershipStore(database,
					MongoStoreSettings.defaults()
						.withCollections("reactive_nodes", "reactive_leases")
						.withOperationTimeout(Duration.ofSeconds(2))));
			ReactiveMongoBroadcastKeys.of(database, "reactive_keys", Duration.ofSeconds(2)).keyring();
		}
		assertEveryCommandAskedForThePrimary("find", "findAndModify", "update", "delete", "hello", "createIndexes");
	}

	@Test
	void aFencedOutWriteReadsTheNewerEpochFromThePrimary() {
		try (MongoClient client = MongoClients.create(secondaryPreferred())) {
			MongoDatabase database = client.getDatabase("membership");
			database.getCollection("reports")
				.insertOne(new Document("_id", "r").append("_fence", new Document("default", 5L)));
			assertTheClientReadsFromSecondaries(() -> database.getCollection("reports").find().first());

			EpochFence old = EpochFence.of("default", 3);
			assertThat(old.updateOne(database.getCollection("reports"), Filters.eq("_id", "r"), Updates.set("v", 1))
				.supersededBy()).hasValue(5);
			assertThat(old.updateMany(database.getCollection("reports"), Filters.eq("_id", "r"), Updates.set("v", 1))
				.supersededBy()).hasValue(5);
			MongoTemplate template = new MongoTemplate(client, "membership");
			assertThat(old.updateFirst(template, Query.query(where("_id").is("r")), new Update().set("v", 1), "reports")
				.supersededBy()).hasValue(5);
			assertThat(old.upsert(template, Query.query(where("_id").is("r")), new Update().set("v", 1), "reports")
				.supersededBy()).hasValue(5);
		}
		assertEveryCommandAskedForThePrimary("find", "update");
		assertThat(this.sent).filteredOn((s) -> s.command().equals("find")).hasSizeGreaterThanOrEqualTo(4);
	}

	/**
	 * The check below can fail: the same client sends secondaryPreferred with an
	 * application's own read.
	 */
	private void assertTheClientReadsFromSecondaries(Runnable applicationRead) {
		applicationRead.run();
		assertThat(this.sent).filteredOn((s) -> s.command().equals("find"))
			.extracting(Sent::readPreference)
			.containsOnly("secondaryPreferred");
		this.sent.clear();
	}

	private void assertEveryCommandAskedForThePrimary(String... expected) {
		assertThat(this.sent).extracting(Sent::command).contains(expected);
		assertThat(this.sent).filteredOn((s) -> !s.primary()).isEmpty();
	}

	/** Every operation of the store, each at least once. */
	private static void exercise(MembershipStore store) {
		store.initialize();
		Instant now = store.serverTime().orElseThrow();
		Holder holder = new Holder("node-a", "a-1", "127.0.0.1:1001");
		store.heartbeat(new NodeRecord("node-a", "a-1", "127.0.0.1:1001", now, null, List.of("default")));
		long epoch = store.tryAcquire("default", holder, now, now.plusSeconds(15)).orElseThrow().epoch();
		assertThat(store.renew("default", holder, epoch, now.plusSeconds(20), null)).isPresent();
		assertThat(store.findLease("default")).isPresent();
		Member member = new Member("node-a", "a-1", "127.0.0.1:1001", now, now, List.of("default"), true);
		assertThat(store.writeRoster(List.of(member), List.of(), "node-a", epoch, 1)).isPresent();
		assertThat(store.findLeases(List.of("default"), 0).leases()).containsKey("default");
		assertThat(store.findRoster()).isPresent();
		assertThat(store.findNodes()).hasSize(1);
		store.removeNodesNotSeenSince(now.minusSeconds(3600));
		assertThat(store.release("default", holder, epoch, null)).isTrue();
		store.removeNode("node-a", "a-1");
	}

}
