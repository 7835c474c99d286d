package dev.membership.engine.heartbeat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.spi.NodeRecord;

import static org.assertj.core.api.Assertions.assertThat;

/** When a heartbeat also rewrites the node's document. */
class HeartbeatsTests {

	private static final Duration RETENTION = Duration.ofMinutes(10);

	private static final long MINUTE = Duration.ofMinutes(1).toNanos();

	private static NodeRecord document(List<String> groups) {
		return new NodeRecord("a", "a-1", "a:8080", Instant.parse("2026-11-23T12:00:00Z"), null, groups);
	}

	@Test
	void theFirstDocumentIsDue() {
		assertThat(Heartbeats.documentDue(null, document(List.of("default")), 0, 0, RETENTION)).isTrue();
	}

	@Test
	void anUnchangedDocumentIsDueOnlyAfterHalfTheRetention() {
		NodeRecord same = document(List.of("default"));
		assertThat(Heartbeats.documentDue(same, same, 0, 4 * MINUTE, RETENTION)).isFalse();
		assertThat(Heartbeats.documentDue(same, same, 0, 5 * MINUTE + 1, RETENTION)).isTrue();
	}

	@Test
	void aChangedDocumentIsDueAtOnce() {
		assertThat(Heartbeats.documentDue(document(List.of("default")), document(List.of("default", "reports")), 0,
				MINUTE, RETENTION))
			.isTrue();
	}

}
