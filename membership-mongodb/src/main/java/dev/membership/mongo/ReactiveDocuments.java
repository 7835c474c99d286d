package dev.membership.mongo;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import com.mongodb.MongoNamespace;
import com.mongodb.ReadConcern;
import com.mongodb.WriteConcern;
import com.mongodb.bulk.BulkWriteResult;
import com.mongodb.client.model.BulkWriteOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.IndexModel;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.WriteModel;
import com.mongodb.client.result.DeleteResult;
import com.mongodb.client.result.UpdateResult;
import com.mongodb.reactivestreams.client.FindPublisher;
import com.mongodb.reactivestreams.client.MongoCollection;
import com.mongodb.reactivestreams.client.MongoDatabase;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.membership.spi.StoreException;

/**
 * {@link Documents} and {@link DocumentDatabase} on the reactive driver: each call blocks
 * the caller (the membership node's own thread, or the actuator's request thread, never a
 * reactive one) for its answer, a little longer than the driver's own timeout at most,
 * which is what normally ends a call.
 */
record ReactiveDocuments(MongoCollection<Document> collection, Duration blockAtMost) implements Documents {

	/** The database; its calls blocked for at most {@code blockAtMost}. */
	static DocumentDatabase database(MongoDatabase database, Duration blockAtMost) {
		return new DocumentDatabase() {

			@Override
			public Documents collection(String name) {
				return new ReactiveDocuments(database.getCollection(name), blockAtMost);
			}

			@Override
			public Document runCommand(Bson command) {
				return Mono.from(database.runCommand(command)).block(blockAtMost);
			}

			@Override
			public <T> T call(String operation, Supplier<T> action) {
				return ReactiveDocuments.call(operation, action);
			}

		};
	}

	static <T> T call(String operation, Supplier<T> action) {
		try {
			return MembershipDocuments.call(operation, action);
		}
		catch (RuntimeException ex) {
			if (Exceptions.unwrap(ex) instanceof InterruptedException) {
				// the node is stopping: keep the flag for its loop
				Thread.currentThread().interrupt();
				throw new StoreException("MongoDB " + operation + " interrupted", ex);
			}
			if (ex instanceof IllegalStateException && String.valueOf(ex.getMessage()).startsWith("Timeout")) {
				// Reactor's own bound, should the driver's timeout not end the call first
				throw new StoreException("MongoDB " + operation + " failed: " + ex.getMessage(), ex);
			}
			throw ex;
		}
	}

	@Override
	public MongoNamespace namespace() {
		return this.collection.getNamespace();
	}

	@Override
	public Documents withTimeout(long nanos) {
		return new ReactiveDocuments(this.collection.withTimeout(nanos, TimeUnit.NANOSECONDS),
				Duration.ofNanos(nanos).plusMillis(250));
	}

	@Override
	public Documents withReadConcern(ReadConcern readConcern) {
		return new ReactiveDocuments(this.collection.withReadConcern(readConcern), this.blockAtMost);
	}

	@Override
	public Documents withWriteConcern(WriteConcern writeConcern) {
		return new ReactiveDocuments(this.collection.withWriteConcern(writeConcern), this.blockAtMost);
	}

	@Override
	public @Nullable Document findOneAndUpdate(Bson filter, Bson update, FindOneAndUpdateOptions options) {
		return one(this.collection.findOneAndUpdate(filter, update, options));
	}

	@Override
	public UpdateResult updateOne(Bson filter, Bson update, UpdateOptions options) {
		return one(this.collection.updateOne(filter, update, options));
	}

	@Override
	public UpdateResult updateMany(Bson filter, Bson update) {
		return one(this.collection.updateMany(filter, update));
	}

	@Override
	public BulkWriteResult bulkWrite(List<? extends WriteModel<Document>> writes) {
		return one(this.collection.bulkWrite(writes, new BulkWriteOptions().ordered(false)));
	}

	@Override
	public DeleteResult deleteOne(Bson filter) {
		return one(this.collection.deleteOne(filter));
	}

	@Override
	public DeleteResult deleteMany(Bson filter) {
		return one(this.collection.deleteMany(filter));
	}

	@Override
	public List<Document> find(Find find) {
		FindPublisher<Document> found = this.collection.find(find.filter())
			.skip(find.skip())
			.limit(find.limit())
			.batchSize(find.batchSize());
		if (find.projection() != null) {
			found = found.projection(find.projection());
		}
		if (find.sort() != null) {
			found = found.sort(find.sort());
		}
		return all(found);
	}

	@Override
	public @Nullable Document first(Bson filter) {
		return one(this.collection.find(filter).first());
	}

	@Override
	public void createIndex(Bson keys, IndexOptions options) {
		one(this.collection.createIndex(keys, options));
	}

	@Override
	public void createIndexes(List<IndexModel> indexes) {
		all(this.collection.createIndexes(indexes));
	}

	@Override
	public List<Document> aggregate(List<? extends Bson> pipeline) {
		return all(this.collection.aggregate(pipeline));
	}

	/** The publisher's one result (null when it completes empty), on this thread. */
	private <T> T one(Publisher<T> publisher) {
		return Mono.from(publisher).block(this.blockAtMost);
	}

	private <T> List<T> all(Publisher<T> publisher) {
		List<T> all = Flux.from(publisher).collectList().block(this.blockAtMost);
		return (all != null) ? all : List.of();
	}

}
