package dev.membership.jdbc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

import dev.membership.leadership.FencedOutException;
import dev.membership.leadership.LeadershipTerm;

/**
 * A term's fence for the application's own PostgreSQL tables, in two strengths.
 * <ul>
 * <li><b>The transaction fence</b>, {@link #joinTransaction(DataSource)}: one call inside
 * a Spring transaction, and the whole transaction commits only under this term, before
 * any newer term begins, or not at all.</li>
 * <li><b>The row fence</b>, {@link #update} and {@link #upsert}: each fenced row keeps,
 * in a {@code bigint} column ({@code fence} unless told otherwise), the epoch of the last
 * term that wrote it, and a write under an older epoch changes nothing and says which
 * newer epoch got there first. It protects the rows written through it, one statement at
 * a time; an update that wrote only some of the rows it selected is partial, never a
 * success.</li>
 * </ul>
 * A leader paused past its lease (a GC pause, a frozen VM) cannot overwrite what its
 * successor wrote. <pre>
 * JdbcEpochFence fence = JdbcEpochFence.of(LeaderContext.currentTerm());
 * fence.joinTransaction(dataSource); // inside @Transactional: every later statement commits under this term only
 * fence.update(jdbcClient, "invoices", Map.of("status", "sent"), Map.of("id", id)).orThrow(fence);
 * </pre> For a statement of your own, put {@link #assignment()} in its {@code SET} and
 * {@link #condition()} in its {@code WHERE}, with {@link #params()} among its named
 * parameters. Either strength throws {@link FencedOutException}, as MongoDB's fence does.
 */
public final class JdbcEpochFence {

	/** The epoch's named parameter in {@link #assignment()} and {@link #condition()}. */
	public static final String EPOCH_PARAMETER = "membershipFenceEpoch";

	private static final Pattern NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]*");

	private final String group;

	private final long epoch;

	private final String column;

	private final String lease;

	private final String tablePrefix;

	private JdbcEpochFence(String group, String lease, long epoch, String column, String tablePrefix) {
		this.group = group;
		this.lease = lease;
		this.epoch = epoch;
		this.column = column;
		this.tablePrefix = tablePrefix;
	}

	/**
	 * A fence with the epoch of {@code term}: a group's, or inside partition work a
	 * partition's, whose epochs are its own (its transaction fence is the partition's
	 * term; keep each row fence's rows to one partition).
	 */
	public static JdbcEpochFence of(LeadershipTerm term) {
		JdbcEpochFence fence = of(term.group(), term.epoch());
		OptionalInt partition = term.partition();
		return partition.isPresent() ? new JdbcEpochFence(fence.group, fence.group + "#" + partition.getAsInt(),
				fence.epoch, fence.column, fence.tablePrefix) : fence;
	}

	/**
	 * A fence with {@code epoch} of {@code group}, for code that carries the epoch rather
	 * than the term.
	 */
	public static JdbcEpochFence of(String group, long epoch) {
		Objects.requireNonNull(group, "group");
		return new JdbcEpochFence(group, group, epoch, "fence", JdbcStoreSettings.defaults().tablePrefix());
	}

	/**
	 * The same fence kept in another column (one per group whose terms write the table).
	 */
	public JdbcEpochFence column(String column) {
		return new JdbcEpochFence(this.group, this.lease, this.epoch, name(column, "column"), this.tablePrefix);
	}

	/**
	 * The same fence, for a store whose tables have another prefix
	 * ({@code membership.jdbc.table-prefix}): the transaction fence reads the store's
	 * {@code <prefix>terms} table.
	 */
	public JdbcEpochFence tablePrefix(String prefix) {
		JdbcStoreSettings checked = JdbcStoreSettings.defaults().withTablePrefix(prefix);
		return new JdbcEpochFence(this.group, this.lease, this.epoch, this.column, checked.tablePrefix());
	}

	/**
	 * Makes the current Spring transaction on {@code dataSource} commit only under this
	 * term, whatever it writes and however many statements it runs: call it once, first,
	 * inside {@code @Transactional} (or a {@code TransactionTemplate}) on that
	 * {@code DataSource}. One statement holds the term's row in the store's {@code terms}
	 * table {@code FOR SHARE} until the transaction ends:
	 * <ul>
	 * <li>when a newer term has begun, it throws {@link FencedOutException} (the
	 * transaction must roll back);</li>
	 * <li>a take-over waits for the transaction to end before its term begins, so the
	 * transaction commits before any newer term exists or not at all; a transaction still
	 * open after a quarter of the take-over's operation timeout is ended by it
	 * ({@code pg_terminate_backend}, allowed to the same role), as its term's lease has
	 * expired.</li>
	 * </ul>
	 * Renewals do not wait for fenced transactions. At REPEATABLE READ or SERIALIZABLE, a
	 * take-over after the transaction's snapshot fails the statement with a serialization
	 * error: roll back either way. The database must be the store's (the {@code terms}
	 * table is there).
	 * @throws FencedOutException when the term is over
	 * @throws IllegalStateException when no Spring transaction holds a connection of
	 * {@code dataSource}
	 */
	public void joinTransaction(DataSource dataSource) {
		Objects.requireNonNull(dataSource, "dataSource");
		TransactionFence.join(dataSource, this.tablePrefix + "terms", this.lease, this.group, this.epoch);
	}

	public long epoch() {
		return this.epoch;
	}

	public String group() {
		return this.group;
	}

	/**
	 * The lease whose term this is: the group's name, or {@code group#partition} for a
	 * partition's term.
	 */
	public String lease() {
		return this.lease;
	}

	/** For a statement's {@code SET}: {@code fence = :membershipFenceEpoch}. */
	public String assignment() {
		return this.column + " = :" + EPOCH_PARAMETER;
	}

	/**
	 * For a statement's {@code WHERE}: the row was last written by this term or an older
	 * one, or never fenced.
	 */
	public String condition() {
		return "(" + this.column + " IS NULL OR " + this.column + " <= :" + EPOCH_PARAMETER + ")";
	}

	/** The named parameters of {@link #assignment()} and {@link #condition()}. */
	public Map<String, Object> params() {
		return Map.of(EPOCH_PARAMETER, this.epoch);
	}

	/** {@link #update(JdbcClient, String, Map, Map)} through a {@link JdbcTemplate}. */
	public JdbcFencedWriteResult update(JdbcTemplate jdbc, String table, Map<String, ?> values, Map<String, ?> key) {
		return update(JdbcClient.create(jdbc), table, values, key);
	}

	/**
	 * {@code UPDATE table SET values..., fence = epoch WHERE key... AND (fence IS NULL OR fence <= epoch)},
	 * in one statement that also counts the rows {@code key} selects: a write that
	 * changed only some of them (a newer term wrote the others) is
	 * {@linkplain JdbcFencedWriteResult#isPartial() partial}, never a success. When it
	 * did not change them all, reads the newest fence of those rows, to say which epoch
	 * fenced it out.
	 */
	public JdbcFencedWriteResult update(JdbcClient jdbc, String table, Map<String, ?> values, Map<String, ?> key) {
		String target = name(table, "table");
		Map<String, Object> params = new LinkedHashMap<>(params());
		List<String> set = new ArrayList<>();
		values.forEach((column, value) -> set.add(bind(column, "v", value, params)));
		set.add(assignment());
		String where = where(key, params);
		// both parts see the rows as the statement began; the update re-checks each row
		// it locks
		long[] counts = jdbc
			.sql("WITH matched AS (SELECT count(*) AS n FROM " + target + " WHERE " + where + "), written AS (UPDATE "
					+ target + " SET " + String.join(", ", set) + " WHERE " + where + " AND " + condition()
					+ " RETURNING 1) SELECT (SELECT n FROM matched) AS matched, (SELECT count(*) FROM "
					+ "written) AS written")
			.params(params)
			.query((rs, i) -> new long[] { rs.getLong("written"), rs.getLong("matched") })
			.single();
		long rows = counts[0];
		long matched = Math.max(counts[0], counts[1]); // never fewer matched than written
		return new JdbcFencedWriteResult(rows, matched, false,
				(rows < matched || rows == 0) ? newer(jdbc, target, key) : OptionalLong.empty());
	}

	/** {@link #upsert(JdbcClient, String, Map, Map)} through a {@link JdbcTemplate}. */
	public JdbcFencedWriteResult upsert(JdbcTemplate jdbc, String table, Map<String, ?> key, Map<String, ?> values) {
		return upsert(JdbcClient.create(jdbc), table, key, values);
	}

	/**
	 * Inserts the row ({@code key} and {@code values}, fenced with this epoch), or
	 * updates it where this term or an older one wrote it last:
	 * {@code INSERT ... ON CONFLICT (key columns) DO UPDATE ... WHERE fence <= epoch}.
	 * The key's columns must be the table's primary key or have a unique index.
	 */
	public JdbcFencedWriteResult upsert(JdbcClient jdbc, String table, Map<String, ?> key, Map<String, ?> values) {
		String target = name(table, "table");
		Map<String, Object> params = new LinkedHashMap<>(params());
		List<String> columns = new ArrayList<>();
		List<String> inserted = new ArrayList<>();
		List<String> updated = new ArrayList<>();
		key.forEach((column, value) -> {
			columns.add(name(column, "column"));
			inserted.add(":" + parameter("k", column, value, params));
		});
		values.forEach((column, value) -> {
			columns.add(name(column, "column"));
			inserted.add(":" + parameter("v", column, value, params));
			updated.add(column + " = excluded." + column);
		});
		columns.add(this.column);
		inserted.add(":" + EPOCH_PARAMETER);
		updated.add(this.column + " = excluded." + this.column);
		String sql = "INSERT INTO " + target + " AS t (" + String.join(", ", columns) + ") VALUES ("
				+ String.join(", ", inserted) + ") ON CONFLICT (" + String.join(", ", key.keySet()) + ") DO UPDATE SET "
				+ String.join(", ", updated) + " WHERE t." + this.column + " IS NULL OR t." + this.column + " <= :"
				+ EPOCH_PARAMETER + " RETURNING (xmax = 0) AS inserted";
		List<Boolean> done = jdbc.sql(sql).params(params).query((rs, i) -> rs.getBoolean("inserted")).list();
		return done.isEmpty() ? new JdbcFencedWriteResult(0, false, newer(jdbc, target, key))
				: new JdbcFencedWriteResult(1, done.get(0), OptionalLong.empty());
	}

	private OptionalLong newer(JdbcClient jdbc, String table, Map<String, ?> key) {
		Map<String, Object> params = new LinkedHashMap<>();
		String where = where(key, params);
		List<Long> newest = jdbc.sql("SELECT max(" + this.column + ") AS newest FROM " + table + " WHERE " + where)
			.params(params)
			.query((rs, i) -> rs.getObject("newest", Long.class))
			.list();
		Long epoch = newest.isEmpty() ? null : newest.get(0);
		return (epoch != null && epoch > this.epoch) ? OptionalLong.of(epoch) : OptionalLong.empty();
	}

	private static String where(Map<String, ?> key, Map<String, Object> params) {
		if (key.isEmpty()) {
			throw new IllegalArgumentException("A fenced write needs the key of the rows it writes");
		}
		List<String> conditions = new ArrayList<>();
		key.forEach((column, value) -> conditions.add(bind(column, "k", value, params)));
		return String.join(" AND ", conditions);
	}

	private static String bind(String column, String kind, Object value, Map<String, Object> params) {
		return name(column, "column") + " = :" + parameter(kind, column, value, params);
	}

	private static String parameter(String kind, String column, Object value, Map<String, Object> params) {
		String parameter = kind + "_" + column.replace('.', '_');
		params.put(parameter, value);
		return parameter;
	}

	private static String name(String name, String what) {
		if (name == null || !NAME.matcher(name).matches()) {
			throw new IllegalArgumentException("Not an unquoted " + what + " name: '" + name + "'");
		}
		return name;
	}

	@Override
	public String toString() {
		return "JdbcEpochFence[" + this.lease + " epoch " + this.epoch + " in column " + this.column + "]";
	}

}
