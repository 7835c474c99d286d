package dev.membership.jdbc;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.membership.liveness.Member;
import dev.membership.spi.FireMark;
import dev.membership.spi.GroupAssignment;
import dev.membership.spi.Heartbeat;
import dev.membership.spi.Holder;
import dev.membership.spi.LeaseReading;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.MembershipStore;
import dev.membership.spi.NodeRecord;
import dev.membership.spi.Roster;
import dev.membership.spi.RosterChange;

import static dev.membership.jdbc.Statements.instant;

/**
 * The store on PostgreSQL 14 or later, through the application's {@link DataSource}: one
 * row per lease, per node and for the roster, every operation one statement in autocommit
 * (READ COMMITTED is enough: each conditional write re-evaluates its condition on the row
 * it locks), every time the server's ({@code clock_timestamp()}). No lock is held beyond
 * a statement, and none across a call of the node's.
 */
public final class JdbcMembershipStore implements MembershipStore {

	private final JdbcStoreSettings settings;

	private final Statements sql;

	private static final Logger log = LoggerFactory.getLogger(JdbcMembershipStore.class);

	private final LeaseRows leases;

	private final NodeRows nodes;

	private final RosterRows roster;

	private final JdbcSchema schema;

	public JdbcMembershipStore(DataSource dataSource, JdbcStoreSettings settings) {
		this.settings = settings;
		this.sql = new Statements(dataSource, settings);
		this.leases = new LeaseRows(this.sql);
		this.nodes = new NodeRows(this.sql);
		this.roster = new RosterRows(this.sql);
		this.schema = new JdbcSchema(this.sql, settings);
	}

	/** The settings of this store. */
	public JdbcStoreSettings settings() {
		return this.settings;
	}

	/**
	 * Checks the database (PostgreSQL 14 or later, durable commits) and creates the
	 * tables when set to.
	 */
	@Override
	public void initialize() {
		this.schema.check();
		if (this.settings.initializeSchema()) {
			this.schema.create();
		}
		if (!this.leases.readTimeline()) {
			log.info(
					"This PostgreSQL server has no WAL timeline to read (pg_current_wal_lsn()): each epoch is the last "
							+ "one plus one, so a failover that loses commits could hand out an epoch again; the durability "
							+ "check above says whether it can");
		}
	}

	/**
	 * For a test's broken variant: epochs as the stored one plus one, as on a server
	 * without a WAL timeline.
	 */
	void offTimeline() {
		this.leases.offTimeline();
	}

	@Override
	public Optional<Instant> serverTime() {
		return this.sql.call("read the server's clock",
				() -> this.sql.jdbc.query("SELECT " + Statements.NOW + " AS now", (rs, i) -> instant(rs, "now"))
					.stream()
					.findFirst());
	}

	@Override
	public Optional<LeaseRecord> tryAcquire(String group, Holder holder, Instant expiredBefore, Instant expiresAt) {
		return this.leases.acquire(group, holder, null, 0, expiredBefore, expiresAt);
	}

	@Override
	public Optional<LeaseRecord> tryTakeOver(String group, Holder holder, String from, long epoch,
			Instant expiredBefore, Instant expiresAt) {
		return this.leases.acquire(group, holder, from, epoch, expiredBefore, expiresAt);
	}

	@Override
	public Optional<Instant> renew(String group, Holder holder, long epoch, Instant expiresAt,
			@Nullable List<FireMark> fires) {
		return this.leases.renew(group, holder, epoch, expiresAt, fires);
	}

	@Override
	public long renewAll(Holder holder, Map<String, Long> epochs, Instant expiresAt,
			Map<String, List<FireMark>> fires) {
		return this.leases.renewAll(holder, epochs, expiresAt, fires);
	}

	@Override
	public boolean release(String group, Holder holder, long epoch, @Nullable List<FireMark> fires) {
		return this.leases.release(group, holder, epoch, fires);
	}

	@Override
	public long releaseAll(Holder holder, Map<String, Long> epochs, Map<String, List<FireMark>> fires) {
		return this.leases.releaseAll(holder, epochs, fires);
	}

	@Override
	public Optional<LeaseRecord> findLease(String group) {
		return this.leases.find(group);
	}

	@Override
	public LeaseReading findLeases(Collection<String> groups, long rosterVersion) {
		return this.leases.findWithRoster(groups, rosterVersion, this.roster);
	}

	@Override
	public Optional<Roster> findRoster() {
		return this.roster.find();
	}

	@Override
	public OptionalLong writeRoster(List<Member> members, List<RosterChange> changes,
			Map<String, GroupAssignment> assignments, String keeperNodeId, long epoch, long sequence) {
		return this.roster.write(members, changes, assignments, keeperNodeId, epoch, sequence);
	}

	@Override
	public Heartbeat heartbeat(NodeRecord node) {
		return this.nodes.heartbeat(node);
	}

	@Override
	public List<NodeRecord> findNodes() {
		return this.nodes.findAll();
	}

	@Override
	public void removeNode(String nodeId, String incarnation) {
		this.nodes.remove(nodeId, incarnation);
	}

	@Override
	public long removeNodesNotSeenSince(Instant cutoff) {
		return this.nodes.removeNotSeenSince(cutoff);
	}

	@Override
	public String toString() {
		return "JdbcMembershipStore[" + this.sql.leases + ", " + this.sql.nodes + ", " + this.sql.roster + "]";
	}

}
