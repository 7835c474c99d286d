package dev.membership;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.membership.liveness.Member;
import dev.membership.store.LeaseRecord;
import dev.membership.store.NodeRecord;

/**
 * What the keeper of the roster (the leader of the default group) decides from one read of the node documents: who is
 * a member and who is live, by the liveness window in database time. A node that holds a lease keeps itself live
 * through its renewals instead of heartbeating, so its lease counts as a heartbeat, and its entry outlives its node
 * document should that be removed meanwhile. Decisions only; no store calls.
 */
final class RosterKeeping {

	private final Duration livenessWindow;

	RosterKeeping(Duration livenessWindow) {
		this.livenessWindow = livenessWindow;
	}

	/**
	 * The roster as of database time {@code now}: {@code self} (the keeper, live by definition), every node document,
	 * and every live lease holder; {@code leases} may be empty when the keeper is the only holder there can be.
	 */
	List<Member> build(Member self, List<NodeRecord> records, Map<String, LeaseRecord> leases, List<Member> previous,
			Instant now) {
		Map<String, Instant> holderRenewals = new HashMap<>();
		Map<String, LeaseRecord> holderLeases = new HashMap<>();
		for (LeaseRecord lease : leases.values()) {
			if (lease.holder() != null && lease.expiresAt() != null && lease.expiresAt().isAfter(now)) {
				Instant renewed = (lease.renewedAt() != null) ? lease.renewedAt() : lease.acquiredAt();
				String key = lease.holder().nodeId() + "/" + lease.holder().incarnation();
				if (isRecent(renewed, now)) {
					holderRenewals.merge(key, renewed, (a, b) -> a.isAfter(b) ? a : b);
					holderLeases.put(key, lease);
				}
			}
		}
		List<Member> roster = new ArrayList<>(records.size() + 1);
		roster.add(self);
		Set<String> listed = new HashSet<>();
		for (NodeRecord r : records) {
			if (r.nodeId().equals(self.nodeId())) {
				continue; // the keeper knows itself best; an older incarnation of its id is gone
			}
			String key = r.nodeId() + "/" + r.incarnation();
			Instant renewed = holderRenewals.get(key);
			boolean heartbeating = isRecent(r.updatedAt(), now);
			Instant last = (renewed != null && (r.updatedAt() == null || renewed.isAfter(r.updatedAt()))) ? renewed
					: r.updatedAt();
			roster.add(new Member(r.nodeId(), r.incarnation(), r.address(), r.startedAt(), last, r.groups(),
					heartbeating || renewed != null));
			listed.add(key);
		}
		Map<String, Member> before = new HashMap<>();
		previous.forEach((m) -> before.put(MemberRoster.key(m), m));
		holderRenewals.forEach((key, renewed) -> {
			if (listed.contains(key) || key.startsWith(self.nodeId() + "/")) {
				return;
			}
			// a holder whose node document is gone: what the roster knew of it, else what its lease says
			Member known = before.get(key);
			LeaseRecord lease = holderLeases.get(key);
			roster.add((known != null)
					? new Member(known.nodeId(), known.incarnation(), known.address(), known.startedAt(), renewed,
							known.groups(), true)
					: new Member(lease.holder().nodeId(), lease.holder().incarnation(), lease.holder().address(), null,
							renewed, List.of(lease.group()), true));
		});
		roster.sort(MemberRoster.LIVE_THEN_OLDEST);
		return roster;
	}

	/** Whether {@code next} says anything {@code current} does not; a live member's newer heartbeat alone is not news. */
	static boolean differs(List<Member> current, List<Member> next) {
		return !sameFacts(current).equals(sameFacts(next));
	}

	private static Set<List<Object>> sameFacts(List<Member> members) {
		Set<List<Object>> facts = new HashSet<>();
		for (Member m : members) {
			facts.add(List.of(m.nodeId(), Objects.toString(m.incarnation()), Objects.toString(m.address()),
					Objects.toString(m.startedAt()), m.groups(), m.live(),
					m.live() ? "" : Objects.toString(m.lastHeartbeat())));
		}
		return facts;
	}

	/** Whether some node document was last written before {@code cutoff}, so the keeper should remove it. */
	static boolean anyNotSeenSince(List<NodeRecord> records, Instant cutoff) {
		return records.stream().anyMatch((r) -> r.updatedAt() != null && r.updatedAt().isBefore(cutoff));
	}

	/** The groups named anywhere in the roster: more than the keeper's own means other leaders to hear of. */
	static Set<String> groupsOf(List<Member> members) {
		Set<String> groups = new HashSet<>();
		members.forEach((m) -> groups.addAll(m.groups()));
		return groups;
	}

	private boolean isRecent(Instant stamp, Instant now) {
		return stamp != null && Duration.between(stamp, now).compareTo(this.livenessWindow) <= 0;
	}

}
