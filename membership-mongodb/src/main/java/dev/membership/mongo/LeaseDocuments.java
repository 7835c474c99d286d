package dev.membership.mongo;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.UpdateManyModel;
import com.mongodb.client.model.UpdateOneModel;
import com.mongodb.client.model.Updates;
import com.mongodb.client.model.WriteModel;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.jspecify.annotations.Nullable;

import dev.membership.spi.FireMark;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseRecord;

/**
 * The lease documents of the MongoDB stores: one per group, keyed by {@code _id}; the
 * filters and updates that acquire, renew and release them. See
 * {@link MongoMembershipStore} for why each is safe.
 */
final class LeaseDocuments {

	private static final Date RELEASED = new Date(0);

	/**
	 * Free, expired, or already this holder's with an earlier expiry: a request that
	 * reaches the server late (after a newer acquisition or renewal of the same holder)
	 * must not start a term behind its back.
	 */
	static Bson acquireFilter(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		return Filters.and(Filters.eq("_id", group), Filters.or(Filters.lt("expiresAt", Date.from(expiredBefore)),
				Filters.and(isHeldBy(holder), Filters.lt("expiresAt", Date.from(expiresAt)))));
	}

	/**
	 * As {@link #acquireFilter}, or still held by node {@code from} with {@code epoch},
	 * which it let go of.
	 */
	static Bson takeOverFilter(String group, Holder holder, String from, long epoch, Instant expiredBefore,
			Instant expiresAt) {
		return Filters.and(Filters.eq("_id", group),
				Filters.or(Filters.lt("expiresAt", Date.from(expiredBefore)),
						Filters.and(isHeldBy(holder), Filters.lt("expiresAt", Date.from(expiresAt))),
						Filters.and(Filters.eq("holderNodeId", from), Filters.eq("epoch", epoch))));
	}

	static Bson acquireUpdate(Holder holder, Instant expiresAt) {
		return Updates.combine(Updates.set("holderNodeId", holder.nodeId()),
				Updates.set("holderIncarnation", holder.incarnation()), Updates.set("holderAddress", holder.address()),
				Updates.set("expiresAt", Date.from(expiresAt)), Updates.currentDate("acquiredAt"),
				Updates.currentDate("renewedAt"), Updates.inc("epoch", 1L));
	}

	static FindOneAndUpdateOptions acquireOptions() {
		return new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.AFTER);
	}

	/**
	 * Never moves the expiry back: a renewal that reaches the server after a later one
	 * must not shorten the lease. The stamp is the holder's liveness and the caller's
	 * clock sample.
	 */
	static Bson renewUpdate(Instant expiresAt) {
		return Updates.combine(Updates.max("expiresAt", Date.from(expiresAt)), Updates.currentDate("renewedAt"));
	}

	/** A renewal that also writes the holder's {@code fires} (null: leaves them). */
	static Bson renewUpdate(Instant expiresAt, @Nullable List<FireMark> fires) {
		return (fires != null) ? Updates.combine(renewUpdate(expiresAt), Updates.set("fires", fires(fires)))
				: renewUpdate(expiresAt);
	}

	static FindOneAndUpdateOptions renewOptions() {
		return new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER)
			.projection(Projections.include("renewedAt"));
	}

	static Instant renewedAt(Document after) {
		return (after != null) ? MembershipDocuments.instant(after.getDate("renewedAt")) : null;
	}

	static Bson releaseUpdate() {
		return Updates.combine(Updates.set("expiresAt", RELEASED), Updates.currentDate("releasedAt"));
	}

	/** A release that also writes the holder's {@code fires} (null: leaves them). */
	static Bson releaseUpdate(@Nullable List<FireMark> fires) {
		return (fires != null) ? Updates.combine(releaseUpdate(), Updates.set("fires", fires(fires))) : releaseUpdate();
	}

	/**
	 * {@code fires} as the lease document keeps them: an array, since a job's name may
	 * hold a dot.
	 */
	static List<Document> fires(List<FireMark> fires) {
		List<Document> documents = new ArrayList<>(fires.size());
		for (FireMark fire : fires) {
			Document document = new Document("job", fire.job()).append("at", Date.from(fire.at()))
				.append("ended", fire.ended());
			// only when there is something to say: a lease document stays small
			if (fire.owed()) {
				document.append("owed", true);
			}
			if (fire.schedule() != null) {
				document.append("schedule", fire.schedule());
			}
			documents.add(document);
		}
		return documents;
	}

	private static List<FireMark> firesOf(Document lease) {
		List<Document> documents = lease.getList("fires", Document.class);
		if (documents == null) {
			return List.of();
		}
		List<FireMark> fires = new ArrayList<>(documents.size());
		for (Document fire : documents) {
			fires.add(new FireMark(fire.getString("job"), fire.getDate("at").toInstant(),
					Boolean.TRUE.equals(fire.getBoolean("ended")), Boolean.TRUE.equals(fire.getBoolean("owed")),
					fire.getString("schedule")));
		}
		return fires;
	}

	/**
	 * Held with the epoch, not released, and not expired by the server's clock: a renewal
	 * that reaches the server after the release, or after the expiry, must not revive the
	 * lease.
	 */
	static Bson renewFilter(String group, Holder holder, long epoch) {
		return Filters.and(heldBy(group, holder, epoch), Filters.gt("expiresAt", RELEASED), unexpired());
	}

	/**
	 * The lease's expiry is after the server's clock ({@code $$NOW}, MongoDB 4.2+), as it
	 * evaluates the write.
	 */
	private static Bson unexpired() {
		return Filters.expr(new Document("$gt", List.of("$expiresAt", "$$NOW")));
	}

	/**
	 * Each of {@code epochs}' leases that {@code holder} holds with the epoch given for
	 * it, has not released, has not expired by the server's clock, and whose expiry is
	 * still before {@code expiresAt}: a request of the same holder that lands late, after
	 * a newer one, matches nothing, so that {@code renewedAt} stays the stamp of the
	 * renewal that wrote the expiry.
	 */
	static Bson renewAllFilter(Holder holder, Map<String, Long> epochs, Instant expiresAt) {
		List<Bson> each = new ArrayList<>(epochs.size());
		epochs.forEach((lease, epoch) -> each.add(Filters.and(Filters.eq("_id", lease), Filters.eq("epoch", epoch))));
		return Filters.and(Filters.or(each), isHeldBy(holder), Filters.gt("expiresAt", RELEASED),
				Filters.lt("expiresAt", Date.from(expiresAt)), unexpired());
	}

	/**
	 * Each of {@code epochs}' leases that {@code holder} holds with the epoch given for
	 * it, released or not.
	 */
	static Bson releaseAllFilter(Holder holder, Map<String, Long> epochs) {
		List<Bson> each = new ArrayList<>(epochs.size());
		epochs.forEach((lease, epoch) -> each.add(Filters.and(Filters.eq("_id", lease), Filters.eq("epoch", epoch))));
		return Filters.and(Filters.or(each), isHeldBy(holder));
	}

	/**
	 * The renewal of every lease of {@code epochs}, those of {@code fires} with their
	 * fires: one unordered batch (one {@code update} command) of one update of the leases
	 * without fires and one per lease with them.
	 */
	static List<WriteModel<Document>> renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		List<WriteModel<Document>> writes = new ArrayList<>(fires.size() + 1);
		Map<String, Long> plain = new java.util.LinkedHashMap<>(epochs);
		plain.keySet().removeAll(fires.keySet());
		if (!plain.isEmpty()) {
			writes.add(new UpdateManyModel<>(renewAllFilter(holder, plain, expiresAt), renewUpdate(expiresAt)));
		}
		epochs.forEach((lease, epoch) -> {
			List<FireMark> marks = fires.get(lease);
			if (marks != null) {
				writes.add(new UpdateOneModel<>(renewAllFilter(holder, Map.of(lease, epoch), expiresAt),
						renewUpdate(expiresAt, marks)));
			}
		});
		return writes;
	}

	/**
	 * A graceful stop's release of every lease of {@code epochs}, each with its own
	 * {@code fires}: one unordered batch, which the drivers send as one {@code update}
	 * command.
	 */
	static List<WriteModel<Document>> releaseAll(Holder holder, Map<String, Long> epochs,
			Map<String, List<FireMark>> fires) {
		List<WriteModel<Document>> writes = new ArrayList<>(epochs.size());
		epochs.forEach((lease, epoch) -> writes
			.add(new UpdateOneModel<>(heldBy(lease, holder, epoch), releaseUpdate(fires.get(lease)))));
		return writes;
	}

	static Bson heldBy(String group, Holder holder, long epoch) {
		return Filters.and(Filters.eq("_id", group), isHeldBy(holder), Filters.eq("epoch", epoch));
	}

	private static Bson isHeldBy(Holder holder) {
		return Filters.and(Filters.eq("holderNodeId", holder.nodeId()),
				Filters.eq("holderIncarnation", holder.incarnation()));
	}

	static LeaseRecord toLease(Document d) {
		String nodeId = d.getString("holderNodeId");
		Holder holder = (nodeId != null)
				? new Holder(nodeId, String.valueOf(d.getString("holderIncarnation")), d.getString("holderAddress"))
				: null;
		Number epoch = d.get("epoch", Number.class);
		return new LeaseRecord(d.getString("_id"), holder, (epoch != null) ? epoch.longValue() : 0,
				MembershipDocuments.instant(d.getDate("expiresAt")),
				MembershipDocuments.instant(d.getDate("acquiredAt")),
				MembershipDocuments.instant(d.getDate("renewedAt")), firesOf(d));
	}

	private LeaseDocuments() {
	}

}
