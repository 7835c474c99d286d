package dev.membership;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.membership.liveness.Member;
import dev.membership.liveness.MemberJoinedEvent;
import dev.membership.liveness.MemberLeftEvent;
import dev.membership.store.NodeRecord;

/**
 * The members as of the last listing, and who joined or left since the one before: a member is live while its last
 * heartbeat (database time) lies within the liveness window of the database's current time. Updated by the loop only.
 */
final class MemberRoster {

	private static final Comparator<Member> LIVE_THEN_OLDEST = Comparator.comparing(Member::live)
		.reversed()
		.thenComparing(Member::startedAt, Comparator.nullsLast(Comparator.naturalOrder()))
		.thenComparing(Member::nodeId);

	private final String selfId;

	private final Duration livenessWindow;

	private final EventDispatch events;

	private volatile List<Member> members = List.of();

	/** Live members of the last listing by node id and incarnation; confined to the loop. */
	private Map<String, Member> live = new LinkedHashMap<>();

	MemberRoster(String selfId, Duration livenessWindow, EventDispatch events) {
		this.selfId = selfId;
		this.livenessWindow = livenessWindow;
		this.events = events;
	}

	List<Member> members() {
		return this.members;
	}

	/** Takes a listing read when the database's clock was about {@code now}; publishes joins and leaves. */
	void update(List<NodeRecord> records, Instant now) {
		List<Member> listed = new ArrayList<>(records.size());
		for (NodeRecord r : records) {
			boolean isLive = r.updatedAt() != null
					&& Duration.between(r.updatedAt(), now).compareTo(this.livenessWindow) <= 0;
			listed.add(new Member(r.nodeId(), r.incarnation(), r.address(), r.startedAt(), r.updatedAt(), r.groups(),
					isLive));
		}
		listed.sort(LIVE_THEN_OLDEST);
		this.members = List.copyOf(listed);
		Map<String, Member> nowLive = new LinkedHashMap<>();
		Map<String, Member> byKey = new LinkedHashMap<>();
		for (Member m : listed) {
			byKey.put(key(m), m);
			if (m.live()) {
				nowLive.put(key(m), m);
			}
		}
		for (Map.Entry<String, Member> gone : this.live.entrySet()) {
			if (!nowLive.containsKey(gone.getKey())) {
				Member was = gone.getValue();
				Member left = byKey.getOrDefault(gone.getKey(), new Member(was.nodeId(), was.incarnation(),
						was.address(), was.startedAt(), was.lastHeartbeat(), was.groups(), false));
				this.events.publish(new MemberLeftEvent(this.selfId, left));
			}
		}
		for (Map.Entry<String, Member> joined : nowLive.entrySet()) {
			if (!this.live.containsKey(joined.getKey())) {
				this.events.publish(new MemberJoinedEvent(this.selfId, joined.getValue()));
			}
		}
		this.live = nowLive;
	}

	private static String key(Member member) {
		return member.nodeId() + "/" + member.incarnation();
	}

}
