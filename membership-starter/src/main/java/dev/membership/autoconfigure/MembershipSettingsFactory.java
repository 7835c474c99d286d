package dev.membership.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.broadcast.BroadcastKeyring;
import dev.membership.broadcast.BroadcastSettings;
import dev.membership.spi.MembershipSettings;

/**
 * Turns properties into validated settings, collecting every broken rule before failing.
 */
final class MembershipSettingsFactory {

	/**
	 * Shorter than this, a call to a real database times out for no fault of the
	 * database.
	 */
	private MembershipSettingsFactory() {
	}

	private static List<Violation> historyViolations(HistoryProperties history, LeaderOnlyProperties leaderOnly) {
		List<Violation> violations = new ArrayList<>();
		Duration retention = history.getRetention();
		if (retention == null || retention.isNegative() || retention.isZero()) {
			violations.add(new Violation(List.of("history.retention"), "must be a positive duration (was " + retention
					+ "); to keep no history, set membership.history.enabled=false"));
		}
		if (history.getMaxRuns() < 1) {
			violations.add(new Violation(List.of("history.max-runs"),
					"must be at least 1 (was " + history.getMaxRuns() + ")"));
		}
		if (history.getBuffer() < 1) {
			violations
				.add(new Violation(List.of("history.buffer"), "must be at least 1 (was " + history.getBuffer() + ")"));
		}
		Duration maxRunTime = leaderOnly.getMaxRunTime();
		if (maxRunTime != null && maxRunTime.isNegative()) {
			violations.add(new Violation(List.of("leader-only.max-run-time"),
					"must be a positive duration, or 0 for no limit (was " + maxRunTime + ")"));
		}
		return violations;
	}

	/**
	 * {@code modules}: the store modules' properties classes, whose names are known too.
	 */
	static MembershipSettings settings(MembershipProperties properties, Environment environment,
			List<Class<?>> modules) {
		String nodeId = (properties.getNodeId() != null) ? properties.getNodeId() : defaultNodeId(environment);
		List<Violation> violations = new ArrayList<>(UnknownMembershipProperties.check(environment, modules));
		violations
			.addAll(MembershipSettings.check(nodeId, properties.getRenewalInterval(), properties.getLeaseDuration(),
					properties.getLivenessWindow(), properties.getSafetyMargin(), properties.getDeadNodeRetention()));
		Duration readinessTimeout = properties.getReadiness().getTimeout();
		if (readinessTimeout == null || readinessTimeout.isNegative() || readinessTimeout.isZero()) {
			violations
				.add(new Violation(List.of("readiness.timeout"), "must be a positive duration (was " + readinessTimeout
						+ "); to not gate readiness at all, set " + "membership.readiness.enabled=false"));
		}
		violations.addAll(historyViolations(properties.getHistory(), properties.getLeaderOnly()));
		Duration drainTimeout = drainTimeout(properties.getShutdown().getDrainTimeout(), shutdownPhase(environment),
				violations);
		Duration grace = properties.getRebalance().getRestartGrace();
		if (grace != null && !grace.isZero() && !grace.isNegative() && properties.getNodeId() == null) {
			violations.add(new Violation(List.of("rebalance.restart-grace", "node-id"),
					"a restart grace keeps a stopped member's place for it to come back under the same node id, but "
							+ "the node id is new at every start; set membership.node-id to one that survives a "
							+ "restart (a StatefulSet's pod name: membership.node-id=${HOSTNAME}), or remove "
							+ "membership.rebalance.restart-grace"));
		}
		violations.addAll(MembershipSettings.restartGraceProblems(grace, properties.getDeadNodeRetention()));
		if (properties.getGroups() == null) {
			violations.add(new Violation(List.of("groups"), "group names must not be blank"));
		}
		else {
			properties.getGroups()
				.stream()
				.map(MembershipSettings::groupNameProblem)
				.filter(Objects::nonNull)
				.distinct()
				.forEach((problem) -> violations.add(new Violation(List.of("groups"), problem)));
		}
		if (!violations.isEmpty()) {
			throw new InvalidMembershipSettingsException(violations);
		}
		return MembershipSettings.builder(nodeId)
			.renewalInterval(properties.getRenewalInterval())
			.leaseDuration(properties.getLeaseDuration())
			.livenessWindow(properties.getLivenessWindow())
			.safetyMargin(properties.getSafetyMargin())
			.deadNodeRetention(properties.getDeadNodeRetention())
			.drainTimeout(drainTimeout)
			.groups(properties.getGroups())
			.partitions((properties.getPartitions() != null) ? properties.getPartitions() : Map.of())
			.maxMovesPercent(properties.getRebalance().getMaxMovesPercent())
			.restartGrace(grace)
			.build();
	}

	/** The drain when {@code membership.shutdown.drain-timeout} is unset. */
	static final Duration DEFAULT_DRAIN = Duration.ofSeconds(20);

	/**
	 * The drain: the one set, which must end {@link MembershipLifecycle#LEAVE_ALLOWANCE}
	 * before Spring's shutdown phase does; unset, {@link #DEFAULT_DRAIN}, or shorter so
	 * that it does (a phase set short for Kubernetes, and nothing of ours, must not stop
	 * the start).
	 */
	static Duration drainTimeout(@Nullable Duration set, Duration phase, List<Violation> violations) {
		Duration room = phase.minus(MembershipLifecycle.LEAVE_ALLOWANCE);
		if (set == null) {
			if (room.isNegative()) {
				violations.add(new Violation(List.of(SHUTDOWN_PHASE),
						"Spring's shutdown phase (" + phase + ") is shorter than the "
								+ MembershipLifecycle.LEAVE_ALLOWANCE
								+ " a node needs to release its leases and say goodbye after its drain; set "
								+ SHUTDOWN_PHASE + " to at least " + MembershipLifecycle.LEAVE_ALLOWANCE));
				return Duration.ZERO;
			}
			return (room.compareTo(DEFAULT_DRAIN) < 0) ? room : DEFAULT_DRAIN;
		}
		if (set.isNegative()) {
			violations.add(new Violation(List.of("shutdown.drain-timeout"),
					"must be zero or a positive duration (was " + set + ")"));
		}
		else if (set.compareTo(room) > 0) {
			violations.add(new Violation(List.of("shutdown.drain-timeout", SHUTDOWN_PHASE),
					"the drain (" + set + ") must end at least " + MembershipLifecycle.LEAVE_ALLOWANCE
							+ " before Spring's shutdown phase does (" + phase + "), so that the node can still "
							+ "release its leases and say goodbye; Spring would otherwise cut the stop short and "
							+ "the others would wait for the leases to expire: lower membership.shutdown.drain-timeout "
							+ "to " + room + " or less, or raise " + SHUTDOWN_PHASE));
		}
		return set;
	}

	/**
	 * Spring Boot's bound on each phase of a graceful shutdown, the membership phase
	 * among them.
	 */
	static final String SHUTDOWN_PHASE = "spring.lifecycle.timeout-per-shutdown-phase";

	/**
	 * {@value #SHUTDOWN_PHASE}, bound as Spring Boot binds it (a bare number is
	 * milliseconds), 30 s when unset.
	 */
	static Duration shutdownPhase(Environment environment) {
		return Binder.get(environment).bind(SHUTDOWN_PHASE, Duration.class).orElse(Duration.ofSeconds(30));
	}

	static String defaultNodeId(Environment environment) {
		String name = environment.getProperty("spring.application.name", "membership");
		byte[] suffix = new byte[4];
		ThreadLocalRandom.current().nextBytes(suffix);
		return name + "-" + HexFormat.of().formatHex(suffix);
	}

	/**
	 * The configured address, or this host's; a bare host gets the web server's actual
	 * port (known once it started; Boot publishes it as local.server.port).
	 */
	static String advertisedAddress(String configured, Environment environment) {
		String host = configured;
		if (host == null || host.isBlank()) {
			try {
				host = InetAddress.getLocalHost().getHostAddress();
			}
			catch (UnknownHostException ex) {
				host = InetAddress.getLoopbackAddress().getHostAddress();
			}
		}
		if (host.contains("://") || host.contains(":")) {
			// a URL or host:port (an IPv6 literal must be given with its port, as
			// [::1]:8080)
			return host;
		}
		String port = environment.getProperty("local.server.port");
		return (port != null) ? host + ":" + port : host;
	}

	static BroadcastSettings broadcastSettings(BroadcastProperties broadcast) {
		List<Violation> violations = new ArrayList<>();
		if (broadcast.getPath() == null || !broadcast.getPath().startsWith("/")) {
			violations
				.add(new Violation(List.of("broadcast.path"), "must start with / (was " + broadcast.getPath() + ")"));
		}
		positive(violations, "broadcast.connect-timeout", broadcast.getConnectTimeout());
		positive(violations, "broadcast.read-timeout", broadcast.getReadTimeout());
		positive(violations, "broadcast.dedupe-window", broadcast.getDedupeWindow());
		if (broadcast.getMaxBodySize() == null || broadcast.getMaxBodySize().toBytes() <= 0) {
			violations.add(new Violation(List.of("broadcast.max-body-size"), "must be positive"));
		}
		for (String key : broadcast.getKeys()) {
			if (key == null || key.getBytes(StandardCharsets.UTF_8).length < BroadcastKeyring.MIN_KEY_BYTES) {
				violations.add(new Violation(List.of("broadcast.keys"),
						"every key needs at least " + BroadcastKeyring.MIN_KEY_BYTES + " bytes"));
				break;
			}
		}
		if (!violations.isEmpty()) {
			throw new InvalidMembershipSettingsException(violations);
		}
		return new BroadcastSettings(broadcast.getPath(), broadcast.getConnectTimeout(), broadcast.getReadTimeout(),
				broadcast.getDedupeWindow(), broadcast.getMaxBodySize().toBytes(), broadcast.isDeliverToSelf());
	}

	private static void positive(List<Violation> violations, String name, Duration value) {
		if (value == null || value.isZero() || value.isNegative()) {
			violations.add(new Violation(List.of(name), "must be a positive duration (was " + value + ")"));
		}
	}

}
