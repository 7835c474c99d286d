package dev.membership.engine.roster;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.term.Unit;
import dev.membership.liveness.Member;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.PlacementChange;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

/**
 * What the keeper of the roster (the leader of the default group) decides from one read
 * of the node documents: who is a member and who is live, by the liveness window in
 * database time. A node that holds a lease keeps itself live through its renewals instead
 * of heartbeating, so its lease counts as a heartbeat, and its entry outlives its node
 * document should that be removed meanwhile. Decisions only; no store calls.
 */
final class RosterDecisions {

	/** The roster's order: live members first, then the oldest (by start) first. */
	static final Comparator<Member> LIVE_THEN_OLDEST = Comparator.comparing(Member::live)
		.reversed()
		.thenComparing(Member::startedAt, Comparator.nullsLast(Comparator.naturalOrder()))
		.thenComparing(Member::nodeId);

	/**
	 * How many recent changes the roster keeps, and every member reads at each change: a
	 * member reads every interval and the keeper writes at most once per interval, so a
	 * member is rarely more than one behind.
	 */
	static final int RECENT_CHANGES = 2;

	/**
	 * A change with more entries than this (members and moved partitions), and more than
	 * half of the roster's (its members and every group's partitions), is not kept: the
	 * whole roster costs about as much, so whoever is behind reads that, and the next
	 * changes do not make every member read it again.
	 */
	static final int MAX_MEMBERS_PER_CHANGE = 256;

	/**
	 * An earlier change this small (members and moved partitions) is kept whatever the
	 * latest's size.
	 */
	static final int SMALL_CHANGE = 16;

	private final Duration livenessWindow;

	RosterDecisions(Duration livenessWindow) {
		this.livenessWindow = livenessWindow;
	}

	/**
	 * The roster as of database time {@code now}: {@code self} (the keeper, live by
	 * definition), every node document, and every lease holder that renewed within the
	 * window; {@code leases} may be empty when the keeper is the only holder there can
	 * be.
	 */
	List<Member> build(Member self, List<NodeRecord> records, Map<String, LeaseRecord> leases, List<Member> previous,
			Instant now) {
		// a holder renewed (or acquired) within the window is live, also when its lease
		// lapsed meanwhile; a released lease is a goodbye (or a resign, before which the
		// node heartbeats)
		Map<Key, Instant> renewals = new HashMap<>();
		Map<Key, Set<String>> heldGroups = new HashMap<>();
		Map<Key, String> addresses = new HashMap<>();
		for (LeaseRecord lease : leases.values()) {
			Instant renewed = (lease.renewedAt() != null) ? lease.renewedAt() : lease.acquiredAt();
			if (lease.holder() == null || LeaseRecord.RELEASED.equals(lease.expiresAt()) || !isRecent(renewed, now)) {
				continue;
			}
			Key key = new Key(lease.holder().nodeId(), lease.holder().incarnation());
			renewals.merge(key, renewed, (a, b) -> a.isAfter(b) ? a : b);
			Set<String> held = heldGroups.computeIfAbsent(key, (k) -> new TreeSet<>());
			if (lease.group().indexOf(Unit.SEPARATOR) < 0) {
				// a partition's lease (group#p) is no group of its own for the placement
				held.add(lease.group());
			}
			addresses.put(key, lease.holder().address());
		}
		List<Member> roster = new ArrayList<>(records.size() + 1);
		roster.add(self);
		Set<Key> listed = new HashSet<>();
		for (NodeRecord r : records) {
			if (r.nodeId().equals(self.nodeId())) {
				// the keeper knows itself best; another incarnation of its id is not in
				// its roster
				continue;
			}
			Key key = new Key(r.nodeId(), r.incarnation());
			Instant renewed = renewals.get(key);
			boolean heartbeating = isRecent(r.updatedAt(), now);
			Instant last = (renewed != null && (r.updatedAt() == null || renewed.isAfter(r.updatedAt()))) ? renewed
					: r.updatedAt();
			roster.add(new Member(r.nodeId(), r.incarnation(), r.address(), r.startedAt(), last, r.groups(),
					heartbeating || renewed != null, r.partitions()));
			listed.add(key);
		}
		Map<Key, Member> before = byKey(previous);
		renewals.forEach((key, renewed) -> {
			if (listed.contains(key) || key.nodeId().equals(self.nodeId())) {
				return;
			}
			// a holder whose node document is gone: what the roster knew of it, else what
			// its leases say
			Member known = before.get(key);
			roster.add((known != null)
					? new Member(known.nodeId(), known.incarnation(), known.address(), known.startedAt(), renewed,
							known.groups(), true, known.partitions())
					: new Member(key.nodeId(), key.incarnation(), addresses.get(key), null, renewed,
							List.copyOf(heldGroups.get(key)), true));
		});
		roster.sort(LIVE_THEN_OLDEST);
		return roster;
	}

	/**
	 * Whether {@code next} says anything {@code current} does not; a live member's newer
	 * heartbeat alone is not news.
	 */
	static boolean differs(List<Member> current, List<Member> next) {
		return !sameFacts(current).equals(sameFacts(next));
	}

	private static Set<List<Object>> sameFacts(List<Member> members) {
		Set<List<Object>> facts = new HashSet<>();
		members.forEach((m) -> facts.add(facts(m)));
		return facts;
	}

	/** What a member's entry says, but for a live member's heartbeat. */
	private static List<Object> facts(Member m) {
		return List.of(Objects.toString(m.nodeId()), Objects.toString(m.incarnation()), Objects.toString(m.address()),
				Objects.toString(m.startedAt()), Objects.toString(m.groups()), m.live(),
				Objects.toString(new TreeMap<>(m.partitions())), m.live() ? "" : Objects.toString(m.lastHeartbeat()));
	}

	/** A member's identity: its node id and the incarnation of the process. */
	record Key(String nodeId, String incarnation) {

		static Key of(Member member) {
			return new Key(member.nodeId(), member.incarnation());
		}

	}

	/**
	 * The write from {@code stored} (of {@code version}) to {@code next} as a change,
	 * with what it changed in the placements ({@code placed}, null when not known from
	 * that version, of {@code partitions} in all now), or null when it is too large to be
	 * worth keeping (a mass restart, a first placement: then everyone reads the whole
	 * roster once).
	 */
	static RosterChange change(long version, List<Member> stored, List<Member> next,
			@Nullable List<PlacementChange> placed, int partitions) {
		Map<Key, Member> before = byKey(stored);
		Map<Key, Member> after = byKey(next);
		List<Member> upserted = new ArrayList<>();
		List<Member> removed = new ArrayList<>();
		after.forEach((key, member) -> {
			Member was = before.get(key);
			if (was == null || !facts(was).equals(facts(member))) {
				upserted.add(member);
			}
		});
		before.forEach((key, member) -> {
			if (!after.containsKey(key)) {
				removed.add(member);
			}
		});
		RosterChange change = new RosterChange(version, upserted, removed, placed);
		int size = entries(change);
		return (size <= MAX_MEMBERS_PER_CHANGE || size <= (next.size() + partitions) / 2) ? change : null;
	}

	/**
	 * The recent changes to keep with a write: the last few, ending with {@code latest};
	 * none when it is null. An earlier change is kept only while it is small
	 * ({@link #SMALL_CHANGE} entries) or no larger than the latest: every member reads
	 * the kept changes at each write, so a large one (the cluster's start, a first
	 * placement) would make every later change cost what it did, for the sake of a member
	 * two versions behind.
	 */
	static List<RosterChange> recent(List<RosterChange> kept, RosterChange latest) {
		if (latest == null) {
			return List.of();
		}
		int most = Math.max(SMALL_CHANGE, entries(latest));
		int first = kept.size();
		while (first > 0 && kept.size() - first < RECENT_CHANGES - 1 && entries(kept.get(first - 1)) <= most) {
			first--;
		}
		List<RosterChange> recent = new ArrayList<>(kept.subList(first, kept.size()));
		recent.add(latest);
		return List.copyOf(recent);
	}

	/** The members and moved partitions {@code change} names. */
	static int entries(RosterChange change) {
		int moved = (change.placed() != null) ? change.placed().stream().mapToInt((c) -> c.moved().size()).sum() : 0;
		return change.upserted().size() + change.removed().size() + moved;
	}

	/**
	 * The roster of {@code roster.version()} from the one this node holds
	 * ({@code stored}, of {@code version}) and the roster's recent changes; null when
	 * they do not start from {@code version} (too far behind, or never read).
	 */
	static List<Member> catchUp(List<Member> stored, long version, Roster roster) {
		List<RosterChange> since = since(roster, version);
		if (since == null) {
			return null;
		}
		Map<Key, Member> members = byKey(stored);
		for (RosterChange change : since) {
			change.removed().forEach((m) -> members.remove(Key.of(m)));
			change.upserted().forEach((m) -> members.put(Key.of(m), m));
		}
		List<Member> caughtUp = new ArrayList<>(members.values());
		caughtUp.sort(LIVE_THEN_OLDEST);
		return caughtUp;
	}

	/**
	 * The roster's recent changes from the one that starts at {@code version} on; null
	 * when none does.
	 */
	static List<RosterChange> since(Roster roster, long version) {
		List<RosterChange> changes = roster.changes();
		for (int i = changes.size() - 1; i >= 0; i--) {
			if (changes.get(i).fromVersion() == version) {
				return changes.subList(i, changes.size());
			}
		}
		return null;
	}

	private static Map<Key, Member> byKey(List<Member> members) {
		Map<Key, Member> byKey = new LinkedHashMap<>();
		members.forEach((m) -> byKey.put(Key.of(m), m));
		return byKey;
	}

	/**
	 * The nodes for which {@code after} places work differently from {@code before}: each
	 * partition's (or plain group's) owner before and after, where they differ.
	 */
	static Set<String> movedFor(Map<String, GroupAssignment> before, Map<String, GroupAssignment> after) {
		Set<String> moved = new TreeSet<>();
		after.forEach((group, placed) -> {
			GroupAssignment was = before.get(group);
			for (int p = 0; p < placed.partitions(); p++) {
				String owner = placed.owner(p);
				String previous = (was != null && p < was.partitions()) ? was.owner(p) : null;
				if (!Objects.equals(owner, previous)) {
					addIfNotNull(moved, owner);
					addIfNotNull(moved, previous);
				}
			}
		});
		return moved;
	}

	private static void addIfNotNull(Set<String> nodes, String node) {
		if (node != null) {
			nodes.add(node);
		}
	}

	/**
	 * Whether some node document was last written before {@code cutoff}, so the keeper
	 * should remove it.
	 */
	static boolean anyNotSeenSince(List<NodeRecord> records, Instant cutoff) {
		return records.stream().anyMatch((r) -> r.updatedAt() != null && r.updatedAt().isBefore(cutoff));
	}

	/**
	 * The groups named anywhere in the roster: more than the keeper's own means other
	 * leaders to hear of.
	 */
	static Set<String> groupsOf(List<Member> members) {
		Set<String> groups = new HashSet<>();
		members.forEach((m) -> groups.addAll(m.groups()));
		return groups;
	}

	private boolean isRecent(Instant stamp, Instant now) {
		return stamp != null && Duration.between(stamp, now).compareTo(this.livenessWindow) <= 0;
	}

}
