package dev.membership.actuate;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import dev.membership.leadership.PartitionAssignedEvent;
import dev.membership.leadership.PartitionReleasedEvent;
import dev.membership.leadership.PartitionRevokedEvent;
import dev.membership.leadership.RevocationReason;

import static org.assertj.core.api.Assertions.assertThat;

class PartitionMetersTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final PartitionMeters meters = new PartitionMeters(this.registry);

	@Test
	void aHandOffIsTimedFromTheRevocationToTheReleaseOfTheSameTerm() {
		this.meters.onEvent(new PartitionAssignedEvent("a", "tenants", 3, 7));
		this.meters.onEvent(new PartitionRevokedEvent("a", "tenants", 3, 7, RevocationReason.MOVED));
		// the release of another term is not this hand-off
		this.meters.onEvent(new PartitionReleasedEvent("a", "tenants", 3, 6));
		assertThat(this.registry.find("membership.partitions.handoff").timer()).isNull();
		this.meters.onEvent(new PartitionReleasedEvent("a", "tenants", 3, 7));
		assertThat(this.registry.get("membership.partitions.handoff").tag("group", "tenants").timer().count())
			.isEqualTo(1);
		assertThat(this.registry.get("membership.partitions.moves")
			.tags("group", "tenants", "direction", "revoked")
			.counter()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("membership.partitions.moves")
			.tags("group", "tenants", "direction", "assigned")
			.counter()
			.count()).isEqualTo(1);
	}

}
