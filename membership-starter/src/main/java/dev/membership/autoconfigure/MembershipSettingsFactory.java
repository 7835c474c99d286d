package dev.membership.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import com.mongodb.WriteConcern;

import org.springframework.core.env.Environment;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;
import dev.membership.MembershipSettings;
import dev.membership.store.mongo.MongoStoreSettings;

/** Turns properties into validated settings, collecting every broken rule before failing. */
final class MembershipSettingsFactory {

	private MembershipSettingsFactory() {
	}

	static MembershipSettings settings(MembershipProperties properties, Environment environment) {
		String nodeId = (properties.getNodeId() != null) ? properties.getNodeId() : defaultNodeId(environment);
		List<Violation> violations = new ArrayList<>(MembershipSettings.check(nodeId, properties.getRenewalInterval(),
				properties.getLeaseDuration(), properties.getLivenessWindow(), properties.getSafetyMargin(),
				properties.getDeadNodeRetention()));
		Duration timeout = properties.getMongo().getOperationTimeout();
		if (timeout != null && (timeout.isZero() || timeout.isNegative())) {
			violations.add(new Violation(List.of("mongo.operation-timeout"),
					"must be a positive duration (was " + timeout + ")"));
		}
		else if (timeout != null && properties.getLeaseDuration() != null
				&& timeout.compareTo(properties.getLeaseDuration()) >= 0) {
			violations.add(new Violation(List.of("mongo.operation-timeout", "lease-duration"),
					"mongo.operation-timeout must be shorter than lease-duration, or one hung call would outlast the "
							+ "lease (was " + timeout + ")"));
		}
		if (WriteConcern.valueOf(properties.getMongo().getLeaseWriteConcern()) == null) {
			violations.add(new Violation(List.of("mongo.lease-write-concern"),
					"unknown write concern '" + properties.getMongo().getLeaseWriteConcern()
							+ "' (use majority, w1, w2, ...)"));
		}
		if (properties.getGroups() == null || properties.getGroups().stream().anyMatch((g) -> g == null || g.isBlank())) {
			violations.add(new Violation(List.of("groups"), "group names must not be blank"));
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
			.groups(properties.getGroups())
			.build();
	}

	static MongoStoreSettings storeSettings(MembershipProperties properties, MembershipSettings settings) {
		MembershipProperties.Mongo mongo = properties.getMongo();
		Duration timeout = (mongo.getOperationTimeout() != null) ? mongo.getOperationTimeout()
				: settings.renewalInterval();
		return new MongoStoreSettings(mongo.getNodesCollection(), mongo.getLeasesCollection(), timeout,
				WriteConcern.valueOf(mongo.getLeaseWriteConcern()), settings.deadNodeRetention());
	}

	static String defaultNodeId(Environment environment) {
		String name = environment.getProperty("spring.application.name", "membership");
		byte[] suffix = new byte[4];
		ThreadLocalRandom.current().nextBytes(suffix);
		return name + "-" + HexFormat.of().formatHex(suffix);
	}

	/** This host and the web server's actual port (known once it started; Boot publishes it as local.server.port). */
	static String defaultAdvertisedAddress(Environment environment) {
		String host;
		try {
			host = InetAddress.getLocalHost().getHostAddress();
		}
		catch (UnknownHostException ex) {
			host = InetAddress.getLoopbackAddress().getHostAddress();
		}
		String port = environment.getProperty("local.server.port");
		return (port != null) ? host + ":" + port : host;
	}

}
