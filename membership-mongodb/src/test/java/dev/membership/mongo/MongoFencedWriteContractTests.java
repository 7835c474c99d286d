package dev.membership.mongo;

import java.util.concurrent.atomic.AtomicInteger;

import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.membership.leadership.FencedWrite;
import dev.membership.test.FencedWriteContract;
import dev.membership.testsupport.EmbeddedMongo;

/**
 * The fence contract both stores pass, for MongoDB's {@link EpochFence} on the embedded
 * stand-in.
 */
class MongoFencedWriteContractTests extends FencedWriteContract {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final AtomicInteger collections = new AtomicInteger();

	private final MongoClient client = mongo.newClient();

	@AfterEach
	void close() {
		this.client.close();
	}

	@Override
	protected Target target() {
		MongoCollection<Document> collection = this.client.getDatabase("fencing")
			.getCollection("contract" + collections.incrementAndGet());
		return new Target() {

			@Override
			public FencedWrite upsert(String group, long epoch, String id, String value) {
				return EpochFence.of(group, epoch)
					.updateOne(collection, Filters.eq("_id", id), Updates.set("value", value),
							new UpdateOptions().upsert(true));
			}

			@Override
			public FencedWrite updateCustomer(String group, long epoch, String customer, String value) {
				return EpochFence.of(group, epoch)
					.updateMany(collection, Filters.eq("customer", customer), Updates.set("value", value));
			}

			@Override
			public void insertUnfenced(String id, String customer, String value) {
				collection.insertOne(new Document("_id", id).append("customer", customer).append("value", value));
			}

			@Override
			public @Nullable String value(String id) {
				Document document = collection.find(Filters.eq("_id", id)).first();
				return (document != null) ? document.getString("value") : null;
			}

			@Override
			public void orThrow(String group, long epoch, FencedWrite write) {
				((FencedWriteResult) write).orThrow(EpochFence.of(group, epoch));
			}

		};
	}

}
