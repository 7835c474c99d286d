package dev.membership.simulation;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.membership.engine.MembershipNode;
import dev.membership.leadership.FireMode;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.MissedFires;
import dev.membership.leadership.OverlappingFires;
import dev.membership.scheduling.FireSchedules;
import dev.membership.spi.Fire;
import dev.membership.spi.FireMark;
import dev.membership.spi.FirePolicy;
import dev.membership.spi.FireSchedule;
import dev.membership.spi.LeaseRecord;
import dev.membership.spi.NodeRuntime;
import dev.membership.spi.RunHistoryStore;
import dev.membership.spi.RunOutcome;
import dev.membership.spi.RunQuery;
import dev.membership.spi.RunRecord;
import dev.membership.spi.ScheduledJob;

/**
 * A scheduled job in the simulation: every node registers it for the group
 * {@code default}, whose leader fires it at each instant of a fixed rate or a cron
 * expression (drawn per run) by the database's clock, under a fire policy drawn per run;
 * each run takes a while (now and then longer than the period). Checked on one clock, the
 * database's: no fire begins before its instant ({@link Invariant#FIRE_NOT_EARLY}); none
 * begins twice where it must not ({@link Invariant#FIRE_ONCE}); and every fire from the
 * first the lease recorded to the last begun ran or is in the run history as missed or
 * skipped ({@link Invariant#FIRES_ACCOUNTED}), but for the notes a crash may have taken
 * with it (a node writes its history once an interval).
 */
final class FireChecks {

	static final String GROUP = "default";

	static final String JOB = "sim#report";

	private record Run(String nodeId, String incarnation, long epoch, long beganAt, long[] endedAt) {
	}

	private final Random random;

	private final Duration period;

	/**
	 * A fixed rate of {@link #period}, or a cron expression whose fires come about that
	 * often (unevenly).
	 */
	private final FireSchedule schedule;

	private final FirePolicy policy;

	private final Supplier<Instant> database;

	private final LongSupplier now;

	/**
	 * Whether the database's clock has not jumped lately (a node's estimate follows a
	 * jump within a lease).
	 */
	private final BooleanSupplier clockSettled;

	/**
	 * How far the database's clock stepped back lately: a node's estimate that met no
	 * contradicting reading since (slow or lost calls) still follows the clock from
	 * before, and a fire may begin that much early by the clock as it reads now, never
	 * more.
	 */
	private final LongSupplier steppedBack;

	private final DefectiveStore store;

	private final Consumer<String> violations;

	private final Consumer<Supplier<String>> trace;

	private final NavigableMap<Instant, List<Run>> runs = new TreeMap<>();

	/**
	 * When (virtual time) the lease was first seen released by the holder of each epoch.
	 */
	private final Map<Long, Long> releasedAt = new HashMap<>();

	/**
	 * When (virtual time) each epoch's term ended on its node: for a graceful end, when
	 * its drain was over.
	 */
	private final Map<Long, Long> termEndedAt = new HashMap<>();

	/**
	 * The latest fire the lease was seen to record as ended, or as begun (a later one
	 * than any ended).
	 */
	private Instant recordedEnded;

	private Instant recordedBegun;

	private Instant firstRecorded;

	private final List<RunRecord> notes = new ArrayList<>();

	/**
	 * Each node's latest term of the group (database time), and the crashes: when, and
	 * that term's start.
	 */
	private final Map<String, Instant> termBegan = new HashMap<>();

	private final List<Instant[]> crashes = new ArrayList<>();

	private final NotesMade notesMade;

	/**
	 * Each process's latest record that reached the store (database time): its write was
	 * sent after that, so that it carried every note the node had made before.
	 */
	private final Map<String, Instant> lastSave = new HashMap<>();

	private long began;

	/**
	 * The database's clock's jumps: the times it read just before and just after each.
	 */
	private final List<Instant[]> jumps = new ArrayList<>();

	FireChecks(Random random, Supplier<Instant> database, LongSupplier now, BooleanSupplier clockSettled,
			LongSupplier steppedBack, DefectiveStore store, Consumer<String> violations,
			Consumer<Supplier<String>> trace) {
		this.steppedBack = steppedBack;
		this.trace = trace;
		this.random = random;
		this.database = database;
		this.now = now;
		this.notesMade = new NotesMade(now);
		this.clockSettled = clockSettled;
		this.store = store;
		this.violations = violations;
		if (random.nextInt(3) == 0) {
			// every 2, 3 or 5 s, or every 7 s within each minute (the last gap of a
			// minute is 4 s)
			int every = new int[] { 2, 3, 5, 7 }[random.nextInt(4)];
			this.period = Duration.ofSeconds(every);
			this.schedule = FireSchedules.cron("*/" + every + " * * * * *", ZoneId.of("Europe/Berlin"));
		}
		else {
			this.period = Duration.ofMillis(1_000 + random.nextInt(3_000));
			this.schedule = FireSchedules.fixedRate(this.period, Duration.ZERO);
		}
		Duration catchUp = random.nextBoolean() ? null : this.period.multipliedBy(random.nextInt(4));
		this.policy = new FirePolicy(catchUp, MissedFires.values()[random.nextInt(MissedFires.values().length)],
				random.nextBoolean() ? OverlappingFires.SKIP : OverlappingFires.BUFFER_ONE,
				(random.nextInt(3) == 0) ? FireMode.STRICT : FireMode.RECORDED);
	}

	NotesMade notesMade() {
		return this.notesMade;
	}

	long began() {
		return this.began;
	}

	String describe() {
		return "job " + this.schedule + " (about every " + this.period.toMillis() + " ms), " + this.policy;
	}

	/**
	 * Where the nodes write their run history: what the check reads the notes of fires
	 * not run from.
	 */
	RunHistoryStore history() {
		return new RunHistoryStore() {
			@Override
			public void initialize() {
			}

			@Override
			public void save(List<RunRecord> records) {
				records.stream().map(RunRecord::process).distinct().forEach(FireChecks.this.notesMade::written);
				// sent no earlier than its latest record: a note made before that was in
				// it
				records.stream()
					// stamped by the database's clock, as the fires are
					.filter((r) -> r.job().equals(JOB))
					.forEach((r) -> FireChecks.this.lastSave.merge(r.process(),
							(r.endedAt() != null && r.endedAt().isAfter(r.startedAt())) ? r.endedAt() : r.startedAt(),
							(a, b) -> a.isAfter(b) ? a : b));
				records.stream()
					.filter((r) -> r.outcome() == RunOutcome.MISSED || r.outcome() == RunOutcome.SKIPPED)
					.forEach(FireChecks.this.notes::add);
			}

			@Override
			public List<RunRecord> find(RunQuery query) {
				return List.of();
			}
		};
	}

	/**
	 * Registers the job on {@code node}, run on its application's lane while
	 * {@code current} holds.
	 */
	AutoCloseable schedule(MembershipNode node, NodeRuntime.Lane application, BooleanSupplier current) {
		boolean loses = this.store.defect() == DefectiveStore.Defect.RUNNER_LOSES_FIRES;
		return node.schedule(new ScheduledJob(GROUP, JOB, this.schedule, this.policy, (fire) -> {
			if (loses && this.random.nextInt(3) == 0) {
				return; // taken, and never run nor said so: the job waits for it for good
			}
			application.execute(() -> run(node, application, current, fire));
		}));
	}

	private void run(MembershipNode node, NodeRuntime.Lane application, BooleanSupplier current, Fire fire) {
		LeadershipTerm.Execution execution = current.getAsBoolean() ? fire.tryBegin(false, Duration.ZERO) : null;
		if (execution == null) {
			return;
		}
		Run run = began(node.nodeId(), node.incarnation(), execution.term().epoch(), fire.instant());
		this.trace.accept(() -> node.nodeId() + " begins the fire of " + fire.instant() + " under epoch "
				+ execution.term().epoch());
		long takes = this.period.toNanos() * (10 + this.random.nextInt(140)) / 100;
		application.schedule(() -> {
			if (current.getAsBoolean()) {
				run.endedAt[0] = this.now.getAsLong();
				this.trace.accept(() -> node.nodeId() + " ends the fire of " + fire.instant());
			}
			execution.close();
		}, takes);
	}

	private Run began(String nodeId, String incarnation, long epoch, Instant fire) {
		this.began++;
		Instant at = this.database.get();
		if (at.plusNanos(this.steppedBack.getAsLong()).isBefore(fire) && this.clockSettled.getAsBoolean()) {
			fail(Invariant.FIRE_NOT_EARLY,
					nodeId + " began the fire of " + fire + " at " + at + " by the database's clock");
		}
		List<Run> before = this.runs.computeIfAbsent(fire, (f) -> new ArrayList<>());
		for (Run other : before) {
			if (this.policy.mode() == FireMode.STRICT) {
				fail(Invariant.FIRE_ONCE, nodeId + " (epoch " + epoch + ") began the fire of " + fire + ", which "
						+ other.nodeId + " began under epoch " + other.epoch + " (STRICT)");
			}
			long ended = other.endedAt[0];
			if (ended >= 0 && other.incarnation.equals(incarnation)) {
				fail(Invariant.FIRE_ONCE, nodeId + " began the fire of " + fire + " again, which it ran to its end");
			}
			// a run that outlived its term's drain counts as not ended: the next term
			// runs it again
			Long termEnded = this.termEndedAt.get(other.epoch);
			if (ended >= 0 && this.releasedAt.containsKey(other.epoch) && termEnded != null && ended <= termEnded) {
				fail(Invariant.FIRE_ONCE,
						nodeId + " (epoch " + epoch + ") began the fire of " + fire + ", which " + other.nodeId
								+ " ran to its end under epoch " + other.epoch + " before that term ended and "
								+ "released the lease");
			}
		}
		if ((this.recordedEnded != null && !this.recordedEnded.isBefore(fire))
				|| (this.recordedBegun != null && this.recordedBegun.isAfter(fire))) {
			fail(Invariant.FIRE_ONCE, nodeId + " (epoch " + epoch + ") began the fire of " + fire + " after the lease "
					+ "recorded " + this.recordedBegun + " begun, " + this.recordedEnded + " ended");
		}
		Run run = new Run(nodeId, incarnation, epoch, this.now.getAsLong(), new long[] { -1 });
		before.add(run);
		return run;
	}

	/** After every step: what the lease records now. */
	void step() {
		LeaseRecord lease = this.store.leaseAsStored(GROUP);
		if (lease == null) {
			return;
		}
		if (LeaseRecord.RELEASED.equals(lease.expiresAt())) {
			this.releasedAt.putIfAbsent(lease.epoch(), this.now.getAsLong());
		}
		for (FireMark mark : lease.fires()) {
			if (mark.job().equals(JOB)) {
				// a term that found no mark records where the job starts (no instant of
				// the schedule): its first fire is the first after that, and is due
				Instant fire = mark.at().equals(this.schedule.next(mark.at().minusMillis(1))) ? mark.at()
						: this.schedule.next(mark.at());
				this.firstRecorded = (this.firstRecorded != null) ? this.firstRecorded : fire;
				if (this.recordedBegun == null || mark.at().isAfter(this.recordedBegun)) {
					this.recordedBegun = mark.at();
				}
				if (mark.ended() && (this.recordedEnded == null || mark.at().isAfter(this.recordedEnded))) {
					this.recordedEnded = mark.at();
				}
			}
		}
	}

	void termBegan(String nodeId, String group) {
		if (GROUP.equals(group)) {
			this.termBegan.put(nodeId, this.database.get());
		}
	}

	void termEnded(String group, long epoch) {
		if (GROUP.equals(group)) {
			this.termEndedAt.putIfAbsent(epoch, this.now.getAsLong());
		}
	}

	/** The database's clock jumped from {@code before} to {@code after}. */
	void clockJumped(Instant before, Instant after) {
		if (!before.equals(after)) {
			this.jumps.add(new Instant[] { before, after });
		}
	}

	/**
	 * A crash, or the end of a stopped process (whose last write of its history may have
	 * failed).
	 */
	void crashed(String nodeId, String incarnation) {
		// the run history's name of the process
		String plain = incarnation.replace("-", "");
		String process = plain.substring(0, Math.min(12, plain.length()));
		this.notesMade.ended(nodeId, process);
		this.crashes.add(new Instant[] { this.database.get(), this.termBegan.getOrDefault(nodeId, Instant.MIN),
				this.lastSave.getOrDefault(process, Instant.MIN) });
	}

	/**
	 * At the end: a leader that stays one keeps running its due fires. A fire it skipped
	 * as overlapping "the run of the fire of X", more than {@link #WEDGED} after X, names
	 * a run that began on that node, or X is accounted for by the same term (recorded
	 * missed: a strict record that failed), or ran elsewhere (owed to a successor), or
	 * that node's notes went with its process. A run that never began and is never
	 * accounted for holds the job for good ({@link Invariant#FIRES_KEEP_RUNNING}).
	 */
	private void checkKeptRunning() {
		for (RunRecord note : this.notes) {
			java.util.regex.Matcher busy = STILL_RUNS.matcher(String.valueOf(note.error()));
			if (note.outcome() != RunOutcome.SKIPPED || !busy.find()) {
				continue;
			}
			Instant x = Instant.parse(busy.group(1));
			if (Duration.between(x, note.startedAt()).compareTo(WEDGED) <= 0 || this.runs.containsKey(x)
					|| lostInACrash(x) || this.notesMade.lostWithItsProcess(x)) {
				continue;
			}
			boolean missedThere = this.notes.stream()
				.anyMatch((r) -> r.outcome() == RunOutcome.MISSED && r.process().equals(note.process())
						&& r.epoch() == note.epoch() && !x.isBefore(r.startedAt()) && !x.isAfter(r.endedAt()));
			if (!missedThere) {
				fail(Invariant.FIRES_KEEP_RUNNING,
						note.nodeId() + " skipped the fire of " + note.startedAt() + " as overlapping the run of the "
								+ "fire of " + x + ", which never began there nor was accounted for (" + describe()
								+ ")");
				return;
			}
		}
	}

	private static final java.util.regex.Pattern STILL_RUNS = java.util.regex.Pattern
		.compile("the run of the fire of (\\S+) still runs");

	/** Longer than any fire waits between its claim and its run's begin. */
	private static final Duration WEDGED = Duration.ofSeconds(6);

	/**
	 * At the end: every fire from the first the lease recorded to the last begun ran, or
	 * is noted.
	 */
	void checkAccounted() {
		checkKeptRunning();
		if (this.firstRecorded == null || this.runs.isEmpty()) {
			return;
		}
		Instant last = this.runs.lastKey();
		for (Instant fire = this.firstRecorded; fire != null && !fire.isAfter(last); fire = this.schedule.next(fire)) {
			Instant f = fire;
			boolean noted = this.notes.stream().anyMatch((r) -> !f.isBefore(r.startedAt()) && !f.isAfter(r.endedAt()));
			if (!this.runs.containsKey(f) && !noted && !lostInACrash(f) && !this.notesMade.lostWithItsProcess(f)) {
				fail(Invariant.FIRES_ACCOUNTED, "the fire of " + f + " neither ran nor is in the history as missed "
						+ "or skipped (" + describe() + "); notes near it: "
						+ this.notes.stream()
							.filter((r) -> Duration.between(r.startedAt(), f).abs().toSeconds() < 30)
							.map((r) -> r.nodeId() + " " + r.startedAt() + ".." + r.endedAt() + " " + r.outcome())
							.toList()
						+ "; ends of processes (at, term began, last history write): "
						+ this.crashes.stream().map(java.util.Arrays::toString).toList());
				return;
			}
		}
	}

	/**
	 * Whether a note of the fire may have been lost with a process that ended: it ended
	 * after the fire, and its history had not reached the store since it could have noted
	 * it: since the fire (noted skipped as it came), or since its latest term began when
	 * that was after the fire (whose plan noted fires past).
	 */
	private boolean lostInACrash(Instant fire) {
		for (Instant[] crash : this.crashes) {
			Instant noted = crash[1].isAfter(fire) ? crash[1] : fire;
			if (!fire.isAfter(crash[0]) && (crash[2].isBefore(noted) || jumpedBetween(fire, crash[0]))) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Whether the database's clock jumped across {@code from}..{@code to}: the stamps of
	 * a process's history writes then no longer order its writes against its notes (a
	 * write stamped after a note may have been sent before it).
	 */
	private boolean jumpedBetween(Instant from, Instant to) {
		for (Instant[] jump : this.jumps) {
			Instant low = jump[0].isBefore(jump[1]) ? jump[0] : jump[1];
			Instant high = jump[0].isBefore(jump[1]) ? jump[1] : jump[0];
			if (!high.isBefore(from) && !low.isAfter(to)) {
				return true;
			}
		}
		return false;
	}

	private void fail(Invariant invariant, String what) {
		this.violations.accept(invariant.violation(what));
	}

}
