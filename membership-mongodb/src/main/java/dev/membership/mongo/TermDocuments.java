package dev.membership.mongo;

import java.util.OptionalLong;

import com.mongodb.ReadPreference;
import com.mongodb.client.ClientSession;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.UpdateOptions;
import com.mongodb.client.model.Updates;
import com.mongodb.client.result.UpdateResult;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import dev.membership.leadership.FencedOutException;

/**
 * The term documents ({@code clusterterms}): one per lease ({@code _id} the group, or
 * {@code group#partition}), with the epoch of its newest term, written by the acquisition
 * that begins each term and by nothing else (renewals never touch it). What the
 * transaction fence holds:
 * <ul>
 * <li>A fenced transaction's first statement updates its term's document, filtered on its
 * epoch, inside the transaction. MongoDB keeps that document's write lock until the
 * transaction ends.</li>
 * <li>A take-over's write of the document, outside any transaction, waits until every
 * transaction that holds it has ended (the MongoDB manual, "In-progress Transactions and
 * Write Conflicts"), bounded by the store's operation timeout; the new term begins only
 * after that write. So each transaction of the older term commits before the newer term
 * begins, or not at all: commit order follows epoch order.</li>
 * <li>A transaction that reaches the document after the take-over wrote it is fenced out
 * (its snapshot shows the newer epoch) or fails with a {@code WriteConflict} (the
 * take-over wrote it after the transaction's snapshot); it cannot commit.</li>
 * </ul>
 * Two fenced transactions of one term write the same document, so they run one at a time:
 * the second fails with a {@code WriteConflict} (a {@code TransientTransactionError},
 * retried as such) while the first is open.
 */
final class TermDocuments {

	private TermDocuments() {
	}

	static Bson of(String lease) {
		return Filters.eq("_id", lease);
	}

	/**
	 * The term of {@code epoch} begins: the epoch raised to it (never lowered), with the
	 * server's time.
	 */
	static Bson began(long epoch) {
		return Updates.combine(Updates.max("epoch", epoch), Updates.currentDate("beganAt"));
	}

	static UpdateOptions upsert() {
		return new UpdateOptions().upsert(true);
	}

	/**
	 * The fence's statement, in the caller's transaction: holds the term's document if
	 * the term is still the one.
	 */
	static UpdateResult hold(MongoCollection<Document> terms, @Nullable ClientSession session, String lease,
			long epoch) {
		Bson filter = Filters.and(of(lease), Filters.eq("epoch", epoch));
		Bson update = Updates.inc("fencedTransactions", 1L);
		return (session != null) ? terms.updateOne(session, filter, update) : terms.updateOne(filter, update);
	}

	/**
	 * After {@link #hold}: nothing if it held the document, else the term is over (or
	 * never was written).
	 */
	static void check(UpdateResult held, MongoCollection<Document> terms, @Nullable ClientSession session, String lease,
			String group, long epoch) {
		if (held.getMatchedCount() > 0) {
			return;
		}
		MongoCollection<Document> primary = terms.withReadPreference(ReadPreference.primary());
		Document current = (session != null) ? primary.find(session, of(lease)).first()
				: primary.find(of(lease)).first();
		Number stored = (current != null) ? current.get("epoch", Number.class) : null;
		OptionalLong newer = (stored != null && stored.longValue() > epoch) ? OptionalLong.of(stored.longValue())
				: OptionalLong.empty();
		throw new FencedOutException(group, epoch, newer,
				"Transaction fenced out: the current term of '" + lease + "' has epoch "
						+ ((stored != null) ? stored
								: "none written (a term begun before the terms "
										+ "collection existed ends at the next acquisition)")
						+ ", not " + epoch + "; this term is over, roll the transaction back");
	}

}
