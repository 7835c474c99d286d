package dev.membership.actuate;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.spi.WorkRegistry;
import dev.membership.Membership;
import dev.membership.leadership.LeadershipTerm;
import dev.membership.autoconfigure.MembershipActuatorAutoConfiguration;
import dev.membership.autoconfigure.ClusterOperationsAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipMetricsAutoConfiguration;
import dev.membership.autoconfigure.MembershipStoreDecorator;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;
import dev.membership.testsupport.FaultInjectingStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;

@ExtendWith({ FastPolling.class, OutputCaptureExtension.class })
class MembershipActuatorTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static int databases;

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				ClusterOperationsAutoConfiguration.class, EndpointAutoConfiguration.class,
				MembershipActuatorAutoConfiguration.class, MembershipMetricsAutoConfiguration.class))
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/actuator" + (++databases),
				"management.endpoints.web.exposure.include=cluster,health,info", "membership.node-id=observed",
				"membership.advertised-address=127.0.0.1:8081", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void clusterEndpointJsonHasTheDocumentedShape() {
		this.runner.run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			String json = JsonMapper.builder()
				.build()
				.writeValueAsString(context.getBean(ClusterEndpoint.class).cluster());
			JsonNode root = JsonMapper.builder().build().readTree(json);
			assertThat(root.propertyNames()).containsExactly("self", "leader", "groups", "partitions", "members",
					"scheduledJobs");
			assertThat(root.get("self").get("nodeId").asString()).isEqualTo("observed");
			assertThat(root.get("self").get("address").asString()).isEqualTo("127.0.0.1:8081");
			JsonNode leader = root.get("leader");
			assertThat(leader.get("nodeId").asString()).isEqualTo("observed");
			assertThat(leader.get("address").asString()).isEqualTo("127.0.0.1:8081");
			assertThat(leader.get("epoch").asLong()).isPositive();
			assertThat(java.time.Instant.parse(leader.get("leaseExpiresAt").asString())).isNotNull();
			JsonNode group = root.get("groups").get("default");
			assertThat(group.get("leader").asString()).isEqualTo("observed");
			assertThat(group.get("epoch").asLong()).isEqualTo(leader.get("epoch").asLong());
			JsonNode member = root.get("members").get(0);
			assertThat(member.propertyNames()).containsExactly("nodeId", "address", "leader", "live", "liveAsOf",
					"lastHeartbeat", "startedAt");
			assertThat(member.get("leader").asBoolean()).isTrue();
			assertThat(member.get("live").asBoolean()).isTrue();
			assertThat(java.time.Instant.parse(member.get("lastHeartbeat").asString())).isNotNull();
			assertThat(member.get("liveAsOf").asString()).isEqualTo(member.get("lastHeartbeat").asString());
			assertThat(java.time.Instant.parse(member.get("startedAt").asString())).isNotNull();
		});
	}

	/**
	 * Another member's liveness is as of the keeper's latest check, which moves every
	 * interval in a quiet cluster (the roster, and its heartbeats, are written only on
	 * change); its heartbeat is not this node's to show.
	 */
	@Test
	void anotherMembersLivenessIsAsOfTheKeepersLatestCheckWhichMovesEveryInterval() {
		String database = "spring.mongodb.uri=" + mongo.uri() + "/actuator" + (++databases);
		this.runner.withPropertyValues(database).run((keeper) -> {
			Membership first = keeper.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> first.isLeader("default"));
			this.runner
				.withPropertyValues(database, "membership.node-id=other",
						"membership.advertised-address=127.0.0.1:8082")
				.run((other) -> {
					ClusterEndpoint endpoint = other.getBean(ClusterEndpoint.class);
					await().atMost(Duration.ofSeconds(5))
						.until(() -> endpoint.cluster().members().size() == 2
								&& keeperSeenBy(endpoint).liveAsOf() != null);
					java.time.Instant first1 = java.time.Instant.parse(keeperSeenBy(endpoint).liveAsOf());
					await().atMost(Duration.ofSeconds(2))
						.until(() -> java.time.Instant.parse(keeperSeenBy(endpoint).liveAsOf()).isAfter(first1));
					ClusterDescriptor.MemberDescriptor seen = keeperSeenBy(endpoint);
					assertThat(seen.live()).isTrue();
					assertThat(seen.lastHeartbeat()).isNull();
				});
		});
	}

	private static ClusterDescriptor.MemberDescriptor keeperSeenBy(ClusterEndpoint endpoint) {
		return endpoint.cluster()
			.members()
			.stream()
			.filter((m) -> m.nodeId().equals("observed"))
			.findFirst()
			.orElseThrow();
	}

	@Test
	void nullsStayInTheJsonWithTheActuatorsOwnMapper() {
		Membership membership = mock(Membership.class);
		org.mockito.Mockito.when(membership.nodeId()).thenReturn("lonely");
		org.mockito.Mockito.when(membership.groups()).thenReturn(java.util.Set.of("default"));
		org.mockito.Mockito.when(membership.leader("default")).thenReturn(java.util.Optional.empty());
		org.mockito.Mockito.when(membership.members()).thenReturn(java.util.List.of());
		org.mockito.Mockito.when(membership.status())
			.thenReturn(
					new dev.membership.MembershipStatus(true, false, null, 0, null, false, java.util.List.of(), false));
		// configured as Boot's endpoint JSON mapper is: nulls left out by default
		JsonMapper actuatorLike = JsonMapper.builder()
			.changeDefaultPropertyInclusion((v) -> v.withValueInclusion(JsonInclude.Include.NON_NULL)
				.withContentInclusion(JsonInclude.Include.NON_NULL))
			.build();
		JsonNode root = actuatorLike
			.readTree(actuatorLike.writeValueAsString(new ClusterEndpoint(membership, null).cluster()));
		assertThat(root.has("leader")).isTrue();
		assertThat(root.get("leader").isNull()).isTrue();
		assertThat(root.get("self").has("address")).isTrue();
		assertThat(root.get("groups").get("default").get("leader").isNull()).isTrue();
		assertThat(root.get("groups").get("default").get("epoch").isNull()).isTrue();
	}

	@Test
	void theEndpointShowsEachPartitionedGroupsOwnersWithTheirEpochs() {
		this.runner.withPropertyValues("membership.partitions.tenants=4").run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 4);
			ClusterDescriptor cluster = context.getBean(ClusterEndpoint.class).cluster();
			assertThat(cluster.groups()).containsOnlyKeys("default");
			ClusterDescriptor.PartitionedGroup tenants = cluster.partitions().get("tenants");
			assertThat(tenants.count()).isEqualTo(4);
			assertThat(tenants.owners()).containsOnlyKeys("0", "1", "2", "3");
			((WorkRegistry) membership).ownedTerms("tenants")
				.forEach((term) -> assertThat(tenants.owners()).containsEntry(
						Integer.toString(term.partition().getAsInt()),
						new ClusterDescriptor.PartitionOwner("observed", term.epoch())));
			Map<?, ?> groups = (Map<?, ?>) context.getBean(MembershipHealthIndicator.class)
				.health(true)
				.getDetails()
				.get("groups");
			assertThat(groups.get("tenants")).isEqualTo(Map.of("role", "partitioned", "owned", 4));
		});
	}

	@Test
	void theWriteOperationResignsThisNode() {
		this.runner.run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			LeadershipTerm before = ((WorkRegistry) membership).currentTerm("default").orElseThrow();
			ClusterDescriptor.Resignation result = (ClusterDescriptor.Resignation) context
				.getBean(ClusterEndpoint.class)
				.act("resign", null, null, null, null, SecurityContext.NONE);
			assertThat(result).isEqualTo(new ClusterDescriptor.Resignation("default", null, true));
			// the resign hands over on the node's loop (drain, then release): the term
			// ends, and on this lone node a later term may follow after the hold-off, so
			// the test watches the term it saw, not isLeader
			assertThat(before.isEnding()).isTrue();
			await().atMost(Duration.ofSeconds(5)).until(() -> !before.isValid());
		});
	}

	private static Object release(ClusterEndpoint endpoint, String group, Integer partition) {
		return endpoint.act("release", group, partition, null, null, SecurityContext.NONE);
	}

	@Test
	void theWriteOperationReleasesOnePartitionAndRefusesWhatCannotBeResignedWithTheReason() {
		this.runner.withPropertyValues("membership.partitions.tenants=4").run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 4);
			ClusterEndpoint endpoint = context.getBean(ClusterEndpoint.class);
			assertThat(release(endpoint, "tenants", 3))
				.isEqualTo(new ClusterDescriptor.Resignation("tenants", 3, true));
			assertThat(membership.partitions("tenants").owned()).doesNotContain(3);
			assertThat(release(endpoint, "tenants", 3))
				.isEqualTo(new ClusterDescriptor.Resignation("tenants", 3, false));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("resign", "tenants", null, null, null, SecurityContext.NONE))
				.withMessageContaining("is partitioned");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> release(endpoint, "tenants", null))
				.withMessageContaining("POST /actuator/cluster/release names the partition");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> release(endpoint, "tenants", 4))
				.withMessageContaining("partitions 0 to 3");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.act("resign", "reprots", null, null, null, SecurityContext.NONE))
				.withMessageContaining("does not compete for a group 'reprots'");
		});
	}

	@Test
	void healthIsUpThenDownWhileTheStoreIsUnreachableThenUpAgain() {
		this.runner.withUserConfiguration(Faults.class).run((context) -> {
			MembershipHealthIndicator health = context.getBean(MembershipHealthIndicator.class);
			FaultInjectingStore store = context.getBean(Faults.class).store;
			await().atMost(Duration.ofSeconds(5)).until(() -> status(health) == Status.UP);
			Health up = health.health(true);
			assertThat(up.getDetails()).containsKeys("nodeId", "groups", "liveMembers", "lastHeartbeatAge",
					"consecutiveFailures", "duplicateNodeId", "ready");
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(
						((Map<?, ?>) ((Map<?, ?>) health.health(true).getDetails().get("groups")).get("default"))
							.get("role"))
					.isEqualTo("leader"));
			store.down();
			await().atMost(Duration.ofSeconds(2)).until(() -> status(health) == Status.DOWN);
			assertThat(health.health(true).getDetails()).containsKey("lastError");
			store.heal();
			await().atMost(Duration.ofSeconds(5)).until(() -> status(health) == Status.UP);
		});
	}

	@Test
	void metricsUseTheDocumentedNamesAndPrometheusSeries() {
		this.runner.withUserConfiguration(Prometheus.class).run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(2)).ignoreExceptions().untilAsserted(() -> {
				assertThat(registry.get("membership.leader").tag("group", "default").gauge().value()).isEqualTo(1);
				assertThat(registry.get("membership.leader.epoch").tag("group", "default").gauge().value())
					.isPositive();
				assertThat(registry.get("membership.members.live").gauge().value()).isEqualTo(1);
				assertThat(registry.get("membership.leadership.acquisitions")
					.tags("group", "default", "outcome", "acquired")
					.counter()
					.count()).isPositive();
				assertThat(registry.get("membership.leadership.renewals")
					.tags("group", "default", "outcome", "renewed")
					.counter()
					.count()).isPositive();
				assertThat(registry.get("membership.heartbeat.last").tag("node", "observed").gauge().value())
					.isGreaterThan(1.7e9);
				assertThat(registry.get("membership.store.operations").tag("operation", "heartbeat").timer().count())
					.isPositive();
			});
			String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
			assertThat(scrape).contains("membership_leader{", "membership_leader_epoch{", "membership_members_live ",
					"membership_leadership_acquisitions_total{", "membership_leadership_renewals_total{",
					"membership_heartbeat_last_seconds{", "membership_store_operations_seconds_count{");
		});
	}

	@Test
	void partitionMetersCountOwnedAndMovedPartitions() {
		this.runner.withUserConfiguration(Prometheus.class)
			.withPropertyValues("membership.partitions.tenants=4")
			.run((context) -> {
				Membership membership = context.getBean(Membership.class);
				await().atMost(Duration.ofSeconds(5)).until(() -> membership.partitions("tenants").owned().size() == 4);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				await().atMost(Duration.ofSeconds(2)).ignoreExceptions().untilAsserted(() -> {
					assertThat(registry.get("membership.partitions.owned").tag("group", "tenants").gauge().value())
						.isEqualTo(4);
					assertThat(registry.get("membership.partitions.moves")
						.tags("group", "tenants", "direction", "assigned")
						.counter()
						.count()).isEqualTo(4);
				});
				assertThat(registry.find("membership.leader").tag("group", "tenants").gauge()).isNull();
				String scrape = context.getBean(PrometheusMeterRegistry.class).scrape();
				assertThat(scrape).contains("membership_partitions_owned{", "membership_partitions_moves_total{",
						"membership_partitions_handoff_seconds_count{");
			});
	}

	@Test
	void readinessWaitsForTheFirstHeartbeatAndListing() {
		int closedPort = EmbeddedMongo.freePort();
		this.runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
			.withPropertyValues("spring.mongodb.uri=mongodb://127.0.0.1:" + closedPort + "/nowhere",
					"membership.mongo.operation-timeout=200ms")
			.run((context) -> {
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
				assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
			});
		this.runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
			.run((context) -> {
				await().atMost(Duration.ofSeconds(5)).until(() -> context.getBean(Membership.class).status().ready());
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
					.isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
			});
	}

	@Test
	void readinessTurnsAcceptingOnceTheStoreIsReached() {
		this.runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
			.withUserConfiguration(Faults.class)
			.withPropertyValues("faults.down-at-start=true", "membership.mongo.operation-timeout=200ms")
			.run((context) -> {
				FaultInjectingStore store = context.getBean(Faults.class).store;
				assertThat(context.getBean(Membership.class).status().ready()).isFalse();
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
				assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
				store.heal();
				await().atMost(Duration.ofSeconds(5))
					.until(() -> availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
			});
	}

	@Test
	void readinessStopsWaitingAfterItsTimeoutAndSaysWhy(CapturedOutput output) {
		this.runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
			.withUserConfiguration(Faults.class)
			.withPropertyValues("faults.down-at-start=true", "membership.mongo.operation-timeout=200ms",
					"membership.readiness.timeout=300ms")
			.run((context) -> {
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
				assertThat(availability.getReadinessState()).isEqualTo(ReadinessState.REFUSING_TRAFFIC);
				await().atMost(Duration.ofSeconds(3))
					.until(() -> availability.getReadinessState() == ReadinessState.ACCEPTING_TRAFFIC);
				assertThat(context.getBean(Membership.class).status().ready()).isFalse();
				assertThat(output).contains("Ready without membership", "has not reached the store within PT0.3S");
			});
	}

	@Test
	void aRefusalFromElsewhereIsNeverTurnedBackByTheTimeout(CapturedOutput output) {
		this.runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
			.withUserConfiguration(Faults.class)
			.withPropertyValues("faults.down-at-start=true", "membership.mongo.operation-timeout=200ms",
					"membership.readiness.timeout=300ms")
			.run((context) -> {
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				// the application (or a shutdown) refuses traffic itself while the gate
				// waits
				AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
				ApplicationAvailability availability = context.getBean(ApplicationAvailability.class);
				await().during(Duration.ofMillis(600))
					.atMost(Duration.ofSeconds(2))
					.until(() -> availability.getReadinessState() == ReadinessState.REFUSING_TRAFFIC);
				assertThat(output).doesNotContain("Ready without membership");
			});
	}

	@Test
	void readinessIsNotGatedWhenSwitchedOff() {
		this.runner.withConfiguration(AutoConfigurations.of(ApplicationAvailabilityAutoConfiguration.class))
			.withUserConfiguration(Faults.class)
			.withPropertyValues("faults.down-at-start=true", "membership.readiness.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean("membershipReadinessGate");
				AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				assertThat(context.getBean(ApplicationAvailability.class).getReadinessState())
					.isEqualTo(ReadinessState.ACCEPTING_TRAFFIC);
			});
	}

	@Test
	void backsOffWithoutActuatorWithoutMicrometerWhenDisabledAndForUserBeans() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(ClusterEndpoint.class)
				.doesNotHaveBean(MembershipHealthIndicator.class));
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MembershipMeters.class));
		// no registry
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(MembershipMeters.class));
		this.runner.withPropertyValues("management.endpoint.cluster.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterEndpoint.class)
				.hasSingleBean(MembershipHealthIndicator.class));
		this.runner.withPropertyValues("management.health.membership.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(ClusterEndpoint.class)
				.doesNotHaveBean(MembershipHealthIndicator.class));
		this.runner.withPropertyValues("management.info.membership.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MembershipInfoContributor.class));
		this.runner.withUserConfiguration(OwnBeans.class)
			.run((context) -> assertThat(context).getBean(ClusterEndpoint.class)
				.isSameAs(context.getBean(OwnBeans.class).endpoint));
		this.runner.withPropertyValues("membership.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ClusterEndpoint.class)
				.doesNotHaveBean(MembershipHealthIndicator.class));
	}

	@Test
	void infoNamesTheNodeAndItsGroups() {
		this.runner.run((context) -> {
			org.springframework.boot.actuate.info.Info.Builder builder = new org.springframework.boot.actuate.info.Info.Builder();
			context.getBean(MembershipInfoContributor.class).contribute(builder);
			Map<?, ?> membership = (Map<?, ?>) builder.build().getDetails().get("membership");
			assertThat(membership.get("nodeId")).isEqualTo("observed");
			assertThat(membership.get("groups").toString()).isEqualTo("[default]");
		});
	}

	private static Status status(MembershipHealthIndicator indicator) {
		return indicator.health(false).getStatus();
	}

	/**
	 * The node's store behind a fault injector; down from the start with
	 * {@code faults.down-at-start=true}.
	 */
	@Configuration(proxyBeanMethods = false)
	static class Faults {

		volatile FaultInjectingStore store;

		@Bean
		MembershipStoreDecorator faults(@Value("${faults.down-at-start:false}") boolean downAtStart) {
			return (real) -> {
				this.store = new FaultInjectingStore(real);
				if (downAtStart) {
					this.store.down();
				}
				return this.store;
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Prometheus {

		@Bean
		PrometheusMeterRegistry prometheusMeterRegistry() {
			return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnBeans {

		final ClusterEndpoint endpoint = new ClusterEndpoint(mock(Membership.class), null);

		@Bean
		ClusterEndpoint clusterEndpoint() {
			return this.endpoint;
		}

	}

}
