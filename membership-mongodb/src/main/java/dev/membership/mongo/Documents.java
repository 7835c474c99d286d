package dev.membership.mongo;

import java.util.List;

import com.mongodb.MongoNamespace;
import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;
import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexModel;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

/**
 * One collection, as the stores use it, on either driver: each call answers on the
 * caller's thread ({@link SyncDocuments} on the blocking driver,
 * {@link ReactiveDocuments} on the reactive one, blocking the membership node's own
 * thread). The stores' logic is written once over it ({@link DocumentsStore},
 * {@link DocumentsRunHistory}).
 */
interface Documents {

	/** What a find asks for: a filter, and optionally a projection, order and bounds. */
	record Find(Bson filter, @Nullable Bson projection, @Nullable Bson sort, int skip, int limit, int batchSize) {

		static Find of(Bson filter) {
			return new Find(filter, null, null, 0, 0, 0);
		}

		Find projection(Bson projection) {
			return new Find(this.filter, projection, this.sort, this.skip, this.limit, this.batchSize);
		}

		Find sort(Bson sort) {
			return new Find(this.filter, this.projection, sort, this.skip, this.limit, this.batchSize);
		}

		Find skip(int skip) {
			return new Find(this.filter, this.projection, this.sort, skip, this.limit, this.batchSize);
		}

		Find limit(int limit) {
			return new Find(this.filter, this.projection, this.sort, this.skip, limit, this.batchSize);
		}

		Find batchSize(int batchSize) {
			return new Find(this.filter, this.projection, this.sort, this.skip, this.limit, batchSize);
		}

	}

	MongoNamespace namespace();

	/** The same collection, each call bounded by {@code nanos}. */
	Documents withTimeout(long nanos);

	Documents withReadConcern(ReadConcern readConcern);

	Documents withWriteConcern(WriteConcern writeConcern);

	@Nullable Document findOneAndUpdate(Bson filter, Bson update, FindOneAndUpdateOptions options);

	UpdateResult updateOne(Bson filter, Bson update, UpdateOptions options);

	UpdateResult updateMany(Bson filter, Bson update);

	/** The writes, unordered: one failing does not stop the others. */
	BulkWriteResult bulkWrite(List<? extends WriteModel<Document>> writes);

	DeleteResult deleteOne(Bson filter);

	DeleteResult deleteMany(Bson filter);

	List<Document> find(Find find);

	@Nullable Document first(Bson filter);

	void createIndex(Bson keys, IndexOptions options);

	void createIndexes(List<IndexModel> indexes);

	/** The aggregation's documents. */
	List<Document> aggregate(List<? extends Bson> pipeline);

}
