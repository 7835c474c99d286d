package dev.membership.mongo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.mongodb.MongoNamespace;
import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;
import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.client.FindIterable;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.BulkWriteOptions;
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

/** {@link Documents} and {@link DocumentDatabase} on the blocking driver. */
record SyncDocuments(MongoCollection<Document> collection) implements Documents {

	/** The database, its calls bounded as {@code database}'s are. */
	static DocumentDatabase database(MongoDatabase database) {
		return new DocumentDatabase() {

			@Override
			public Documents collection(String name) {
				return new SyncDocuments(database.getCollection(name));
			}

			@Override
			public Document runCommand(Bson command) {
				return database.runCommand(command);
			}

			@Override
			public <T> T call(String operation, Supplier<T> action) {
				return MembershipDocuments.call(operation, action);
			}

		};
	}

	@Override
	public MongoNamespace namespace() {
		return this.collection.getNamespace();
	}

	@Override
	public Documents withTimeout(long nanos) {
		return new SyncDocuments(this.collection.withTimeout(nanos, TimeUnit.NANOSECONDS));
	}

	@Override
	public Documents withReadConcern(ReadConcern readConcern) {
		return new SyncDocuments(this.collection.withReadConcern(readConcern));
	}

	@Override
	public Documents withWriteConcern(WriteConcern writeConcern) {
		return new SyncDocuments(this.collection.withWriteConcern(writeConcern));
	}

	@Override
	public @Nullable Document findOneAndUpdate(Bson filter, Bson update, FindOneAndUpdateOptions options) {
		return this.collection.findOneAndUpdate(filter, update, options);
	}

	@Override
	public UpdateResult updateOne(Bson filter, Bson update, UpdateOptions options) {
		return this.collection.updateOne(filter, update, options);
	}

	@Override
	public UpdateResult updateMany(Bson filter, Bson update) {
		return this.collection.updateMany(filter, update);
	}

	@Override
	public BulkWriteResult bulkWrite(List<? extends WriteModel<Document>> writes) {
		return this.collection.bulkWrite(writes, new BulkWriteOptions().ordered(false));
	}

	@Override
	public DeleteResult deleteOne(Bson filter) {
		return this.collection.deleteOne(filter);
	}

	@Override
	public DeleteResult deleteMany(Bson filter) {
		return this.collection.deleteMany(filter);
	}

	@Override
	public List<Document> find(Find find) {
		FindIterable<Document> found = this.collection.find(find.filter())
			.skip(find.skip())
			.limit(find.limit())
			.batchSize(find.batchSize());
		if (find.projection() != null) {
			found = found.projection(find.projection());
		}
		if (find.sort() != null) {
			found = found.sort(find.sort());
		}
		return found.into(new ArrayList<>());
	}

	@Override
	public @Nullable Document first(Bson filter) {
		return this.collection.find(filter).first();
	}

	@Override
	public void createIndex(Bson keys, IndexOptions options) {
		this.collection.createIndex(keys, options);
	}

	@Override
	public void createIndexes(List<IndexModel> indexes) {
		this.collection.createIndexes(indexes);
	}

	@Override
	public List<Document> aggregate(List<? extends Bson> pipeline) {
		return this.collection.aggregate(pipeline).into(new ArrayList<>());
	}

}
