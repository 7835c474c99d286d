package dev.membership.spi;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.membership.InvalidMembershipSettingsException;
import dev.membership.InvalidMembershipSettingsException.Violation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MembershipSettingsTests {

	@Test
	void defaultsFollowTheDesign() {
		MembershipSettings settings = MembershipSettings.builder("n").build();
		assertThat(settings.renewalInterval()).isEqualTo(Duration.ofSeconds(5));
		assertThat(settings.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
		assertThat(settings.livenessWindow()).isEqualTo(Duration.ofSeconds(10));
		assertThat(settings.safetyMargin()).isEqualTo(Duration.ofMillis(1500));
		assertThat(settings.groups()).containsExactly("default");
	}

	@Test
	void everyNodeTakesPartInTheDefaultGroupWhoseLeaderKeepsTheRoster() {
		MembershipSettings settings = MembershipSettings.builder("n").groups(Set.of("a", "b")).build();
		assertThat(settings.groups()).containsExactlyInAnyOrder("a", "b", "default");
	}

	@Test
	void theRosterDocumentsIdCannotNameAGroup() {
		assertThatThrownBy(() -> MembershipSettings.builder("n").groups(Set.of("a", "_roster")).build())
			.isInstanceOf(InvalidMembershipSettingsException.class)
			.hasMessageContaining("'_roster' is reserved for the member roster");
	}

	@Test
	void aGroupNameThatAFieldPathCannotHoldIsRefusedWithTheReason() {
		for (String name : new String[] { "reports.daily", "$reports", "tenants#1" }) {
			assertThat(MembershipSettings.groupNameProblem(name)).as(name).isNotNull();
		}
		assertThat(MembershipSettings.groupNameProblem("reports.daily")).contains("must not contain '.'")
			.contains("EpochFence");
		assertThat(MembershipSettings.groupNameProblem("reports-daily_2")).isNull();
		assertThatExceptionOfType(InvalidMembershipSettingsException.class)
			.isThrownBy(() -> MembershipSettings.builder("n").groups(java.util.Set.of("a.b")).build());
		assertThatExceptionOfType(InvalidMembershipSettingsException.class)
			.isThrownBy(() -> MembershipSettings.builder("n").partitions("$t", 4).build());
	}

	@Test
	void everyRuleIsReportedWithTheSettingsItInvolves() {
		assertThat(violations("", 5, 15, 10)).singleElement()
			.satisfies((v) -> assertThat(v.settings()).containsExactly("node-id"));
		assertThat(violations("n", 8, 15, 10)).extracting(Violation::settings)
			.contains(List.of("renewal-interval", "lease-duration"));
		assertThat(violations("n", 5, 15, 5)).extracting(Violation::settings)
			.contains(List.of("renewal-interval", "liveness-window", "lease-duration"));
		assertThat(violations("n", 5, 15, 15)).extracting(Violation::settings)
			.contains(List.of("renewal-interval", "liveness-window", "lease-duration"));
		assertThat(violations("n", 0, 15, 10)).extracting(Violation::settings).contains(List.of("renewal-interval"));
		assertThat(violations("n", 5, -1, 10)).extracting(Violation::settings).contains(List.of("lease-duration"));
	}

	@Test
	void aSafetyMarginThatWouldEndLeadershipBeforeTheNextRenewalIsRejected() {
		assertThatThrownBy(() -> MembershipSettings.builder("n").safetyMargin(Duration.ofSeconds(10)).build())
			.isInstanceOf(InvalidMembershipSettingsException.class)
			.hasMessageContaining("safety-margin");
	}

	@Test
	void deadNodeRetentionMustOutliveTheLivenessWindow() {
		assertThatThrownBy(() -> MembershipSettings.builder("n").deadNodeRetention(Duration.ofSeconds(5)).build())
			.hasMessageContaining("dead-node-retention");
	}

	private static List<Violation> violations(String nodeId, long interval, long lease, long liveness) {
		return MembershipSettings.check(nodeId, Duration.ofSeconds(interval), Duration.ofSeconds(lease),
				Duration.ofSeconds(liveness), null, Duration.ofMinutes(10));
	}

}
