package dev.membership.mongo;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
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

import dev.membership.testsupport.EmbeddedMongo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * A fence is only as durable as its write: every fenced write goes out with a majority
 * write concern whatever the client, collection or template asks for ({@code w=1} here),
 * keeping a {@code wtimeout}; the epoch that fenced a write out is read back from the
 * primary with a local read concern. The stand-in ignores both, so what each command
 * asked for is read from the driver's own command events.
 */
class FencedWriteDurabilityTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private final List<BsonDocument> sent = new CopyOnWriteArrayList<>();

	@Test
	void fencedWritesAreMajorityWritesAndTheNewerEpochIsReadLocallyFromThePrimary() {
		MongoClientSettings w1 = MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(mongo.uri() + "/?w=1&readConcernLevel=majority"))
			.addCommandListener(new CommandListener() {
				@Override
				public void commandStarted(CommandStartedEvent event) {
					FencedWriteDurabilityTests.this.sent.add(event.getCommand().clone());
				}
			})
			.build();
		try (MongoClient client = MongoClients.create(w1)) {
			MongoDatabase database = client.getDatabase("durability");
			MongoCollection<Document> reports = database.getCollection("reports");
			reports.insertOne(new Document("_id", "r").append("_fence", new Document("default", 5L)));
			EpochFence newer = EpochFence.of("default", 7);
			EpochFence older = EpochFence.of("default", 3);
			this.sent.clear();
			newer.updateOne(reports, Filters.eq("_id", "r"), Updates.set("v", 1));
			newer.updateMany(
					reports.withWriteConcern(
							WriteConcern.W1.withWTimeout(2500, java.util.concurrent.TimeUnit.MILLISECONDS)),
					Filters.eq("_id", "r"), Updates.set("v", 2));
			MongoTemplate template = new MongoTemplate(client, "durability");
			template.setWriteConcern(WriteConcern.W1);
			newer.updateFirst(template, Query.query(where("_id").is("r")), new Update().set("v", 3), "reports");
			newer.upsert(template, Query.query(where("_id").is("s")), new Update().set("v", 4), "reports");
			newer.updateMulti(template, Query.query(where("_id").is("r")), new Update().set("v", 5), "reports");
			assertThat(
					older.updateFirst(template, Query.query(where("_id").is("r")), new Update().set("v", 6), "reports")
						.supersededBy())
				.hasValue(7);
			assertThat(older.upsert(template, Query.query(where("_id").is("r")), new Update().set("v", 6), "reports")
				.supersededBy()).hasValue(7);
		}
		List<BsonDocument> updates = this.sent.stream().filter((c) -> c.containsKey("update")).toList();
		assertThat(updates).hasSizeGreaterThanOrEqualTo(7)
			.allSatisfy((update) -> assertThat(update.getDocument("writeConcern").getString("w").getValue())
				.as("%s", update)
				.isEqualTo("majority"));
		assertThat(updates).as("the collection's wtimeout kept")
			.anyMatch((update) -> update.getDocument("writeConcern")
				.getInt32("wtimeout", new org.bson.BsonInt32(0))
				.getValue() == 2500);
		List<BsonDocument> readBacks = this.sent.stream()
			.filter((c) -> c.containsKey("find") && c.getDocument("filter").toJson().contains("$gt"))
			.toList();
		assertThat(readBacks).isNotEmpty()
			.allSatisfy((find) -> assertThat(find.getDocument("readConcern").getString("level").getValue())
				.isEqualTo("local"));
		// and the template's mapping still applies: the values reached the documents
		try (MongoClient client = MongoClients.create(mongo.uri())) {
			assertThat(client.getDatabase("durability").getCollection("reports").find(Filters.eq("_id", "r")).first())
				.containsEntry("v", 5);
		}
	}

}
