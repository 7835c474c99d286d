package dev.membership.jdbc;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What the store makes of the server's durability and replication settings. */
class DurabilityTests {

	@Test
	void oneServerIsSafeWithCommitsOnOrLocal() {
		assertThat(new Durability("on", "", 0, false, false).verdict()).isInstanceOf(Durability.Safe.class);
		assertThat(new Durability("local", "", 0, false, false).verdict()).isInstanceOf(Durability.Safe.class);
	}

	@Test
	void commitsOffAreRefusedEverywhere() {
		assertThat(new Durability("off", "", 0, false, false).verdict()).isInstanceOf(Durability.Unsafe.class);
		assertThat(new Durability("off", "s1", 1, false, false).verdict()).isInstanceOf(Durability.Unsafe.class);
	}

	@Test
	void localCommitsAreRefusedWhereReplicasStream() {
		assertThat(new Durability("local", "s1", 2, false, false).verdict()).isInstanceOfSatisfying(
				Durability.Unsafe.class,
				(unsafe) -> assertThat(unsafe.message()).contains("synchronous_commit is local")
					.contains("remote_apply"));
	}

	@Test
	void replicasNoneOfWhichIsSynchronousAreDoubtfulAndSynchronousOnesSafe() {
		assertThat(new Durability("on", "", 1, false, false).verdict()).isInstanceOfSatisfying(
				Durability.Doubtful.class,
				(doubtful) -> assertThat(doubtful.message()).contains("synchronous_mode_strict"));
		assertThat(new Durability("remote_apply", "FIRST 1 (s1, s2)", 2, false, false).verdict())
			.isInstanceOf(Durability.Safe.class);
		assertThat(new Durability("remote_write", "ANY 1 (s1)", 1, false, false).verdict())
			.isInstanceOf(Durability.Safe.class);
	}

	@Test
	void aStandbyOrAReadOnlyServerIsNamedWithTheFix() {
		assertThat(new Durability("on", "", 0, true, false).verdict()).isInstanceOfSatisfying(Durability.Unsafe.class,
				(unsafe) -> assertThat(unsafe.message()).contains("a standby").contains("targetServerType=primary"));
		assertThat(new Durability("on", "", 0, false, true).verdict()).isInstanceOfSatisfying(Durability.Unsafe.class,
				(unsafe) -> assertThat(unsafe.message()).contains("read-only"));
	}

}
