package dev.membership.test;

import java.util.Set;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.LeadershipTerm;
import dev.membership.leadership.PartitionAssignedEvent;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.RevocationReason;
import dev.membership.spi.MembershipSettings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class SimulatedPartitionsTests {

	private final SimulatedCluster cluster = SimulatedCluster
		.start(MembershipSettings.builder("node-a").groups(Set.of("reports")).partitions("tenants", 4).build());

	@AfterEach
	void close() {
		this.cluster.close();
	}

	@Test
	void aPartitionRevokedGoesToAPeerAfterTheDrainAndComesBackWithANewEpoch() {
		SimulatedPartitions tenants = this.cluster.partitions("tenants");
		LeadershipTerm first = tenants.assign(2);
		assertThat(first.partition()).hasValue(2);
		tenants.revoke(2);
		assertThat(first.isValid()).isFalse();
		assertThat(this.cluster.node().partitions("tenants").owned()).doesNotContain(2);
		assertThat(this.cluster.events(PartitionRevokedEvent.class)).last()
			.satisfies((revoked) -> assertThat(revoked.reason()).isEqualTo(RevocationReason.MOVED))
			.satisfies((revoked) -> assertThat(revoked.epoch()).isEqualTo(first.epoch()));
		LeadershipTerm again = tenants.assign(2);
		// the peer's term came in between
		assertThat(again.epoch()).isGreaterThan(first.epoch() + 1);
		assertThat(this.cluster.events(PartitionAssignedEvent.class)).last()
			.satisfies((assigned) -> assertThat(assigned.epoch()).isEqualTo(again.epoch()));
	}

	@Test
	void partitionWorkRunsOnlyForOwnedPartitions() {
		SimulatedPartitions tenants = this.cluster.partitions("tenants");
		tenants.assign(1);
		tenants.revoke(1);
		assertThat(this.cluster.node().partitions("tenants").runIfOwner(1, () -> {
		})).isFalse();
		assertThat(this.cluster.node().partitions("tenants").runIfOwner(0, () -> {
		})).isTrue();
	}

	@Test
	void misuseSaysWhatToDoInstead() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.cluster.partitions("reports"))
			.withMessageContaining("membership.partitions.reports");
		assertThatIllegalArgumentException().isThrownBy(() -> this.cluster.partitions("tenants").assign(4))
			.withMessageContaining("0 to 3");
		this.cluster.partitions("tenants").revoke(3);
		assertThatIllegalStateException().isThrownBy(() -> this.cluster.partitions("tenants").revoke(3))
			.withMessageContaining("assign(3) first");
	}

}
