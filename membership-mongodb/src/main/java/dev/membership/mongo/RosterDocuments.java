package dev.membership.mongo;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.mongodb.client.model.Filters;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.Projections;
import com.mongodb.client.model.ReturnDocument;
import com.mongodb.client.model.Updates;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.codecs.DocumentCodec;
import org.bson.conversions.Bson;

import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;
import dev.membership.spi.RosterTooLargeException;

/**
 * The roster document of the MongoDB stores ({@code _id} {@code "_roster"}, among the
 * leases): its fenced write, kept under MongoDB's document limit, and the one query every
 * member makes each interval.
 */
final class RosterDocuments {

	/**
	 * What the roster's member list and kept changes may take: MongoDB's 16 MiB document
	 * limit (error 17419 past it) less 1 MiB for the rest of the document and the update
	 * command around it.
	 */
	static final int ROSTER_BUDGET_BYTES = 15 * 1024 * 1024;

	private static final Codec<Document> DOCUMENTS = new DocumentCodec();

	/**
	 * The leases of {@code groups}, and the roster unless it still has
	 * {@code rosterVersion}.
	 */
	/**
	 * The batch size of a read of {@code groups}' leases and the roster: all of them in
	 * the first batch, one more so that the server sees the end (a first batch holds at
	 * most 101 documents unless told more: a getMore each interval for a node placed on
	 * more than a hundred partitions).
	 */
	static int batchFor(Collection<String> groups) {
		return groups.size() + 2;
	}

	static Bson leasesAndRoster(Collection<String> groups, long rosterVersion) {
		return Filters.or(Filters.in("_id", groups),
				Filters.and(Filters.eq("_id", Roster.ID), Filters.ne("version", rosterVersion)));
	}

	static LeaseReading toReading(Iterable<Document> documents) {
		Map<String, LeaseRecord> leases = new HashMap<>();
		Roster roster = null;
		for (Document d : documents) {
			if (Roster.ID.equals(d.get("_id"))) {
				roster = toRoster(d);
			}
			else {
				LeaseRecord lease = LeaseDocuments.toLease(d);
				leases.put(lease.group(), lease);
			}
		}
		return new LeaseReading(leases, roster);
	}

	/**
	 * Written over an older epoch, or over an earlier write of the same term; else the
	 * upsert collides on _id.
	 */
	static Bson rosterFilter(long epoch, long sequence) {
		return Filters.and(Filters.eq("_id", Roster.ID), Filters.or(Filters.lt("epoch", epoch),
				Filters.and(Filters.eq("epoch", epoch), Filters.lt("sequence", sequence))));
	}

	static Bson rosterUpdate(List<Member> members, List<RosterChange> changes, Map<String, GroupAssignment> assignments,
			String keeperNodeId, long epoch, long sequence) {
		return rosterUpdate(members, changes, assignments, keeperNodeId, epoch, sequence, ROSTER_BUDGET_BYTES);
	}

	static Bson rosterUpdate(List<Member> members, List<RosterChange> changes, String keeperNodeId, long epoch,
			long sequence, long budget) {
		return rosterUpdate(members, changes, Map.of(), keeperNodeId, epoch, sequence, budget);
	}

	/**
	 * The roster's write, within {@code budget} bytes of BSON for its members and
	 * changes, as encoded: the oldest kept changes are left out first (a member behind
	 * them reads the whole roster once); a member list that does not fit alone is
	 * refused.
	 */
	static Bson rosterUpdate(List<Member> members, List<RosterChange> changes, Map<String, GroupAssignment> assignments,
			String keeperNodeId, long epoch, long sequence, long budget) {
		List<Document> entries = toDocuments(members);
		List<Document> placed = Placements.toDocuments(assignments);
		long bytes = bsonSize(new Document("members", entries).append("assignments", placed));
		if (bytes > budget) {
			throw new RosterTooLargeException(members.size(), bytes, budget);
		}
		List<Document> recent = new ArrayList<>(changes.size());
		List<Long> sizes = new ArrayList<>(changes.size());
		for (RosterChange change : changes) {
			Document c = new Document("from", change.fromVersion()).append("upserted", toDocuments(change.upserted()))
				.append("removed", toDocuments(change.removed()));
			if (change.placed() != null) {
				c.append("placed", Placements.changesToDocuments(change.placed()));
			}
			recent.add(c);
			sizes.add(bsonSize(c));
		}
		long total = bytes + sizes.stream().mapToLong(Long::longValue).sum();
		// the oldest first: what is kept stays a run of changes up to this write
		while (total > budget) {
			total -= sizes.remove(0);
			recent.remove(0);
		}
		return Updates.combine(Updates.set("members", entries), Updates.set("changes", recent),
				Updates.set("assignments", placed), Updates.set("keeperNodeId", keeperNodeId),
				Updates.set("epoch", epoch), Updates.set("sequence", sequence), Updates.currentDate("writtenAt"),
				Updates.inc("version", 1L));
	}

	/**
	 * What every member reads: the leases, and of the roster all but the member list and
	 * the placements (members catch up on both by the recent changes). Named field by
	 * field rather than as "all but members", so that no server has to copy the member
	 * list to leave it out.
	 */
	static Bson withoutMembers() {
		return Projections.include("holderNodeId", "holderIncarnation", "holderAddress", "epoch", "expiresAt",
				"acquiredAt", "renewedAt", "version", "keeperNodeId", "writtenAt", "changes");
	}

	/** The size of {@code document} as BSON, as the server will hold it. */
	static long bsonSize(Document document) {
		return new RawBsonDocument(document, DOCUMENTS).getByteBuffer().remaining();
	}

	private static List<Document> toDocuments(List<Member> members) {
		List<Document> entries = new ArrayList<>(members.size());
		for (Member m : members) {
			entries.add(new Document("id", m.nodeId()).append("incarnation", m.incarnation())
				.append("address", m.address())
				.append("startedAt", MembershipDocuments.date(m.startedAt()))
				.append("heartbeat", MembershipDocuments.date(m.lastHeartbeat()))
				.append("groups", m.groups())
				.append("live", m.live()));
			if (!m.partitions().isEmpty()) {
				entries.get(entries.size() - 1).append("partitions", Placements.countsToDocuments(m.partitions()));
			}
		}
		return entries;
	}

	private static List<Member> toMembers(List<Document> entries) {
		List<Member> members = new ArrayList<>();
		if (entries != null) {
			for (Document e : entries) {
				if (e.getString("id") == null) {
					continue; // not one this code wrote
				}
				members.add(new Member(e.getString("id"), e.getString("incarnation"), e.getString("address"),
						MembershipDocuments.instant(e.getDate("startedAt")),
						MembershipDocuments.instant(e.getDate("heartbeat")), e.getList("groups", String.class),
						Boolean.TRUE.equals(e.getBoolean("live")),
						Placements.counts(e.getList("partitions", Document.class))));
			}
		}
		return members;
	}

	static FindOneAndUpdateOptions rosterOptions() {
		return new FindOneAndUpdateOptions().upsert(true)
			.returnDocument(ReturnDocument.AFTER)
			.projection(Projections.include("version"));
	}

	static long version(Document d) {
		Number version = d.get("version", Number.class);
		return (version != null) ? version.longValue() : 0;
	}

	static Roster toRoster(Document d) {
		List<RosterChange> changes = new ArrayList<>();
		List<Document> recent = d.getList("changes", Document.class);
		if (recent != null) {
			for (Document c : recent) {
				Number from = c.get("from", Number.class);
				changes.add(new RosterChange((from != null) ? from.longValue() : -1,
						toMembers(c.getList("upserted", Document.class)),
						toMembers(c.getList("removed", Document.class)),
						Placements.toChanges(c.getList("placed", Document.class))));
			}
		}
		Number epoch = d.get("epoch", Number.class);
		return new Roster(version(d), d.getString("keeperNodeId"), (epoch != null) ? epoch.longValue() : 0,
				MembershipDocuments.instant(d.getDate("writtenAt")), toMembers(d.getList("members", Document.class)),
				changes, Placements.toAssignments(d.getList("assignments", Document.class)));
	}

	private RosterDocuments() {
	}

}
