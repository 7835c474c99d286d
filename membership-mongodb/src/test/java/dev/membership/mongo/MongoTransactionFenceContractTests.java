package dev.membership.mongo;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.Filters;
import org.bson.Document;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.spi.MembershipStore;
import dev.membership.test.TransactionFenceContract;
import dev.membership.testsupport.EmbeddedMongo;

/**
 * The transaction fence contract for MongoDB's {@link EpochFence}, on the stand-in: it
 * has no transactions (nor has a standalone server), so a fenced "transaction" here is
 * the fence's own statement and check ({@code TermDocuments}, what
 * {@code joinTransaction} runs in the caller's transaction), then the write. The wait of
 * a take-over for an open fenced transaction is the MongoDB manual's to keep.
 */
class MongoTransactionFenceContractTests extends TransactionFenceContract {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger databases = new AtomicInteger();

	private final MongoClient client = mongo.newClient();

	@AfterEach
	void close() {
		this.client.close();
	}

	@Override
	protected Target target() {
		MongoDatabase database = this.client.getDatabase("fence" + databases.incrementAndGet());
		MongoStoreSettings settings = MongoStoreSettings.defaults().withOperationTimeout(Duration.ofSeconds(2));
		MembershipStore store = new MongoMembershipStore(database, settings);
		MongoCollection<Document> terms = database.getCollection(settings.termsCollection());
		MongoCollection<Document> rows = database.getCollection("rows");
		return new Target() {

			@Override
			public MembershipStore store() {
				return store;
			}

			@Override
			public OptionalLong termEpoch(String lease) {
				Document term = terms.find(TermDocuments.of(lease)).first();
				return (term != null) ? OptionalLong.of(term.get("epoch", Number.class).longValue())
						: OptionalLong.empty();
			}

			@Override
			public void runFenced(String group, long epoch, String id) {
				TermDocuments.check(TermDocuments.hold(terms, null, group, epoch), terms, null, group, group, epoch);
				rows.insertOne(new Document("_id", id).append("epoch", epoch));
			}

			@Override
			public boolean written(String id) {
				return rows.find(Filters.eq("_id", id)).first() != null;
			}

			@Override
			public void joinOutsideATransaction(String group, long epoch) {
				try (ClientSession session = MongoTransactionFenceContractTests.this.client.startSession()) {
					EpochFence.of(group, epoch)
						.termsCollection(settings.termsCollection())
						.joinTransaction(session, database);
				}
			}

		};
	}

}
