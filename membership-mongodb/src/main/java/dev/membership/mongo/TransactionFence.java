package dev.membership.mongo;

import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import org.bson.Document;

import org.springframework.data.mongodb.MongoDatabaseFactory;
import org.springframework.data.mongodb.MongoDatabaseUtils;
import org.springframework.data.mongodb.SessionSynchronization;

/**
 * The transaction fence on MongoDB: {@link TermDocuments#hold} inside the caller's
 * transaction, on a replica set or a sharded cluster (the deployments that have
 * transactions). Outside a transaction it refuses, rather than protect nothing. Kept
 * apart from {@link EpochFence} so that Spring Data MongoDB is loaded only when it is
 * asked for.
 */
final class TransactionFence {

	private static final String OUTSIDE = "A transaction fence needs a MongoDB transaction (a replica set or a sharded "
			+ "cluster: a standalone server has none), and ";

	private TransactionFence() {
	}

	static void join(ClientSession session, MongoDatabase database, String collection, String lease, String group,
			long epoch) {
		if (!session.hasActiveTransaction()) {
			throw new IllegalStateException(OUTSIDE + "this session has none: call it between startTransaction() and "
					+ "commitTransaction(), or in withTransaction(...); outside one it would protect nothing. For a "
					+ "single write, use a fenced write (updateOne, upsert)");
		}
		MongoCollection<Document> terms = database.getCollection(collection);
		TermDocuments.check(TermDocuments.hold(terms, session, lease, epoch), terms, session, lease, group, epoch);
	}

	static void join(MongoDatabaseFactory factory, String collection, String lease, String group, long epoch) {
		if (!MongoDatabaseUtils.isTransactionActive(factory)) {
			throw new IllegalStateException(OUTSIDE + "no Spring transaction on this MongoDatabaseFactory is active: "
					+ "call it in @Transactional (or a TransactionTemplate) with a MongoTransactionManager on the same "
					+ "factory; outside one it would protect nothing. For a single write, use a fenced write "
					+ "(updateFirst, upsert)");
		}
		// the database bound to the transaction's session: each call below is part of the
		// transaction
		MongoCollection<Document> terms = MongoDatabaseUtils
			.getDatabase(factory, SessionSynchronization.ON_ACTUAL_TRANSACTION)
			.getCollection(collection);
		TermDocuments.check(TermDocuments.hold(terms, null, lease, epoch), terms, null, lease, group, epoch);
	}

}
