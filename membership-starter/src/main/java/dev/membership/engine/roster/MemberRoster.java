package dev.membership.engine.roster;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import dev.membership.engine.events.EventDispatch;
import dev.membership.liveness.Member;
import dev.membership.liveness.MemberJoinedEvent;
import dev.membership.liveness.MemberLeftEvent;

/**
 * The members as of the last roster this node took (the one it read, or wrote as the
 * keeper), and who joined or left since the one before. Updated by the loop only.
 */
public final class MemberRoster {

	private final String selfId;

	private final EventDispatch events;

	private volatile List<Member> members = List.of();

	private volatile List<Member> liveMembers = List.of();

	/**
	 * The roster as stored, which the keeper compares its next one with; confined to the
	 * loop.
	 */
	private List<Member> stored = List.of();

	/** The version of the roster taken last; 0 before the first. */
	private volatile long version;

	/**
	 * Live members of the last roster by node id and incarnation; confined to the loop.
	 */
	private Map<RosterDecisions.Key, Member> live = new LinkedHashMap<>();

	/**
	 * When the members' liveness was last checked, by the database's clock: the keeper's
	 * latest read of the node documents (its own, or as of its latest renewal of the
	 * default group's lease that this node read); null before.
	 */
	private volatile @Nullable Instant checkedAt;

	public MemberRoster(String selfId, EventDispatch events) {
		this.selfId = selfId;
		this.events = events;
	}

	public List<Member> members() {
		return this.members;
	}

	public @Nullable Instant checkedAt() {
		return this.checkedAt;
	}

	/** The liveness was checked at {@code at} (never moves back). On the loop. */
	void checked(Instant at) {
		Instant was = this.checkedAt;
		if (was == null || at.isAfter(was)) {
			this.checkedAt = at;
		}
	}

	/** The live ones, computed once per roster: callers may ask often. */
	public List<Member> liveMembers() {
		return this.liveMembers;
	}

	long version() {
		return this.version;
	}

	List<Member> stored() {
		return this.stored;
	}

	/**
	 * Takes the roster stored with {@code version}, shown as {@code shown} (this node may
	 * know better of itself); publishes joins and leaves.
	 */
	void take(long version, List<Member> stored, List<Member> shown) {
		this.stored = List.copyOf(stored);
		List<Member> listed = new ArrayList<>(shown);
		listed.sort(RosterDecisions.LIVE_THEN_OLDEST);
		this.members = List.copyOf(listed);
		this.liveMembers = listed.stream().filter(Member::live).toList();
		this.version = version;
		Map<RosterDecisions.Key, Member> nowLive = new LinkedHashMap<>();
		Map<RosterDecisions.Key, Member> byKey = new LinkedHashMap<>();
		for (Member m : listed) {
			byKey.put(key(m), m);
			if (m.live()) {
				nowLive.put(key(m), m);
			}
		}
		for (Map.Entry<RosterDecisions.Key, Member> gone : this.live.entrySet()) {
			if (!nowLive.containsKey(gone.getKey())) {
				Member was = gone.getValue();
				Member left = byKey.getOrDefault(gone.getKey(), new Member(was.nodeId(), was.incarnation(),
						was.address(), was.startedAt(), was.lastHeartbeat(), was.groups(), false, was.partitions()));
				this.events.publish(new MemberLeftEvent(this.selfId, left));
			}
		}
		for (Map.Entry<RosterDecisions.Key, Member> joined : nowLive.entrySet()) {
			if (!this.live.containsKey(joined.getKey())) {
				this.events.publish(new MemberJoinedEvent(this.selfId, joined.getValue()));
			}
		}
		this.live = nowLive;
	}

	private static RosterDecisions.Key key(Member member) {
		return RosterDecisions.Key.of(member);
	}

}
