package dev.membership.mongo;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.MongoWriteException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.mongodb.core.MongoTemplate;
import org.springframework.data.mongodb.core.query.Query;
import org.springframework.data.mongodb.core.query.Update;

import dev.membership.leadership.FencedOutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.springframework.data.mongodb.core.query.Criteria.where;

/**
 * The fencing-token rule of {@link EpochFence}, with the plain driver and with
 * {@code MongoTemplate}: a write applies only if no newer epoch of the group has written
 * the document, and records its epoch there. Runs against the embedded stand-in, a
 * Testcontainers MongoDB and any server named by MEMBERSHIP_TEST_MONGO_URI.
 */
public abstract class AbstractEpochFenceContractTests {

	private static final AtomicInteger collections = new AtomicInteger();

	private MongoClient client;

	private MongoCollection<Document> collection;

	private MongoTemplate template;

	/** A new client on the server under test; closed after each test. */
	protected abstract MongoClient newClient();

	protected abstract String databaseName();

	@BeforeEach
	void setUp() {
		this.client = newClient();
		String name = "fence" + System.nanoTime() % 100000 + "_" + collections.incrementAndGet();
		this.collection = this.client.getDatabase(databaseName()).getCollection(name);
		this.template = new MongoTemplate(this.client, databaseName());
		this.collection.insertMany(List.of(new Document("_id", "unfenced").append("value", 0),
				new Document("_id", "other").append("value", 0)));
	}

	@AfterEach
	void tearDown() {
		this.collection.drop();
		this.client.close();
	}

	private FencedWriteResult write(String id, long epoch, int value) {
		return EpochFence.of("default", epoch)
			.updateOne(this.collection, Filters.eq("_id", id), Updates.set("value", value));
	}

	private Document document(String id) {
		return this.collection.find(Filters.eq("_id", id)).first();
	}

	private static long fence(Document document, String group) {
		return document.get("_fence", Document.class).get(group, Number.class).longValue();
	}

	@Test
	void aDocumentWithoutAFenceTakesAnyEpochAndRecordsIt() {
		FencedWriteResult result = write("unfenced", 3, 1);
		assertThat(result.applied()).isTrue();
		assertThat(result.isFencedOut()).isFalse();
		assertThat(result.modifiedCount()).isEqualTo(1);
		assertThat(document("unfenced").getInteger("value")).isEqualTo(1);
		assertThat(fence(document("unfenced"), "default")).isEqualTo(3);
	}

	@Test
	void anOlderEpochAfterANewerOneIsFencedOutAndChangesNothing() {
		assertThat(write("unfenced", 5, 1).applied()).isTrue();
		FencedWriteResult late = write("unfenced", 4, 2);
		assertThat(late.applied()).isFalse();
		assertThat(late.isFencedOut()).isTrue();
		assertThat(late.supersededBy()).hasValue(5);
		assertThat(document("unfenced").getInteger("value")).isEqualTo(1);
		assertThat(fence(document("unfenced"), "default")).isEqualTo(5);
		assertThatExceptionOfType(FencedOutException.class).isThrownBy(() -> late.orThrow(EpochFence.of("default", 4)))
			.withMessageContaining("epoch 4 of group 'default' fenced out: epoch 5");
	}

	@Test
	void theSameEpochWritesAgainAndANewerOneTakesOver() {
		assertThat(write("unfenced", 4, 1).applied()).isTrue();
		assertThat(write("unfenced", 4, 2).applied()).isTrue();
		assertThat(write("unfenced", 6, 3).applied()).isTrue();
		assertThat(document("unfenced").getInteger("value")).isEqualTo(3);
		assertThat(fence(document("unfenced"), "default")).isEqualTo(6);
	}

	@Test
	void aMissingDocumentIsNeitherWrittenNorFencedOut() {
		FencedWriteResult result = write("missing", 4, 1);
		assertThat(result.applied()).isFalse();
		assertThat(result.isFencedOut()).isFalse();
	}

	@Test
	void fencesOfDifferentGroupsAreIndependent() {
		assertThat(write("unfenced", 9, 1).applied()).isTrue();
		FencedWriteResult reports = EpochFence.of("reports", 2)
			.updateOne(this.collection, Filters.eq("_id", "unfenced"), Updates.set("report", true));
		assertThat(reports.applied()).isTrue();
		assertThat(fence(document("unfenced"), "default")).isEqualTo(9);
		assertThat(fence(document("unfenced"), "reports")).isEqualTo(2);
	}

	@Test
	void anUpsertByIdCreatesTheDocumentAndALateUpsertCollidesAndIsFencedOut() {
		UpdateOptions upsert = new UpdateOptions().upsert(true);
		FencedWriteResult created = EpochFence.of("default", 7)
			.updateOne(this.collection, Filters.eq("_id", "report"), Updates.set("by", "new"), upsert);
		assertThat(created.applied()).isTrue();
		assertThat(created.upserted()).isTrue();
		assertThat(fence(document("report"), "default")).isEqualTo(7);
		FencedWriteResult late = EpochFence.of("default", 6)
			.updateOne(this.collection, Filters.eq("_id", "report"), Updates.set("by", "old"), upsert);
		assertThat(late.applied()).isFalse();
		assertThat(late.supersededBy()).hasValue(7);
		assertThat(document("report").getString("by")).isEqualTo("new");
		assertThat(this.collection.countDocuments(Filters.eq("by", "old"))).isZero();
	}

	@Test
	void anotherUniqueKeyViolationIsTheCallersErrorNotAFence() {
		this.collection.updateOne(Filters.eq("_id", "unfenced"), Updates.set("email", "mine@example.com"));
		this.collection.updateOne(Filters.eq("_id", "other"), Updates.set("email", "taken@example.com"));
		this.collection.createIndex(new Document("email", 1), new IndexOptions().unique(true));
		assertThatExceptionOfType(MongoWriteException.class).isThrownBy(() -> EpochFence.of("default", 3)
			.updateOne(this.collection, Filters.eq("_id", "unfenced"), Updates.set("email", "taken@example.com")));
	}

	@Test
	void anUpsertCollisionThatNoNewerEpochCausedIsRethrown() {
		// the document exists under an older fence, but the caller's filter does not
		// match it: the insert collides
		assertThat(write("unfenced", 3, 1).applied()).isTrue();
		assertThatExceptionOfType(MongoWriteException.class).isThrownBy(() -> EpochFence.of("default", 5)
			.updateOne(this.collection, Filters.and(Filters.eq("_id", "unfenced"), Filters.eq("value", 42)),
					Updates.set("value", 2), new UpdateOptions().upsert(true)));
		assertThat(fence(document("unfenced"), "default")).isEqualTo(3);
	}

	@Test
	void updateManyLeavesDocumentsOfNewerEpochsAloneAndSaysSo() {
		assertThat(write("other", 8, 1).applied()).isTrue();
		FencedWriteResult result = EpochFence.of("default", 5)
			.updateMany(this.collection, Filters.exists("value"), Updates.set("value", 5));
		assertThat(result.matchedCount()).isEqualTo(1);
		assertThat(result.supersededBy()).hasValue(8);
		assertThat(result.isPartial()).as("some written, one a newer epoch's: never a success").isTrue();
		assertThat(result.applied()).isFalse();
		assertThat(result.isFencedOut()).isFalse();
		assertThat(document("unfenced").getInteger("value")).isEqualTo(5);
		assertThat(document("other").getInteger("value")).isEqualTo(1);
	}

	@Test
	void withMongoTemplateTheSameRuleHolds() {
		String name = this.collection.getNamespace().getCollectionName();
		Query byId = Query.query(where("_id").is("unfenced"));
		assertThat(EpochFence.of("default", 5)
			.updateFirst(this.template, byId, new Update().set("value", 1), name)
			.applied()).isTrue();
		FencedWriteResult late = EpochFence.of("default", 4)
			.updateFirst(this.template, byId, new Update().set("value", 2), name);
		assertThat(late.isFencedOut()).isTrue();
		assertThat(late.supersededBy()).hasValue(5);
		assertThat(byId.getQueryObject()).as("the caller's query is left as it was")
			.doesNotContainKey("_fence.default");
		assertThat(document("unfenced").getInteger("value")).isEqualTo(1);

		Query report = Query.query(where("_id").is("report"));
		assertThat(EpochFence.of("default", 5)
			.upsert(this.template, report, new Update().set("by", "new"), name)
			.upserted()).isTrue();
		assertThat(EpochFence.of("default", 3)
			.upsert(this.template, report, new Update().set("by", "old"), name)
			.supersededBy()).hasValue(5);
		assertThat(document("report").getString("by")).isEqualTo("new");

		FencedWriteResult many = EpochFence.of("default", 4)
			.updateMulti(this.template, Query.query(where("value").exists(true)), new Update().set("value", 4), name);
		// "other" only: "unfenced" holds epoch 5
		assertThat(many.matchedCount()).isEqualTo(1);
		assertThat(many.supersededBy()).hasValue(5);
	}

	@Test
	void aFenceCanLiveInAFieldOfItsOwnButNotInAFieldAGroupNameCannotMake() {
		EpochFence fence = EpochFence.of("default", 2).field("meta.writerEpoch");
		assertThat(fence.updateOne(this.collection, Filters.eq("_id", "unfenced"), Updates.set("value", 1)).applied())
			.isTrue();
		assertThat(document("unfenced").get("meta", Document.class).get("writerEpoch", Number.class).longValue())
			.isEqualTo(2);
		assertThat(EpochFence.of("default", 1)
			.field("meta.writerEpoch")
			.updateOne(this.collection, Filters.eq("_id", "unfenced"), Updates.set("value", 9))
			.supersededBy()).hasValue(2);
		assertThatIllegalArgumentException().isThrownBy(() -> EpochFence.of("a.b", 1)).withMessageContaining("field(");
	}

}
