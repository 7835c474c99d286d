package dev.membership.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.membership.bench.guard.GuardBenchmark;
import dev.membership.bench.support.Table;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The harness starts and every scenario produces its table, with tiny counts
 * ({@code --quick}): a smoke test, not a measurement. Full runs are an explicit command
 * (BENCHMARKS.md).
 */
class BenchHarnessSmokeTests {

	@Test
	void quickRunProducesEveryTable() throws Exception {
		ByteArrayOutputStream printed = new ByteArrayOutputStream();
		List<Table> tables = BenchHarness.run(new String[] { "--quick" },
				new PrintStream(printed, true, StandardCharsets.UTF_8));

		assertThat(tables).extracting(Table::title)
			.hasSize(14)
			.anySatisfy((t) -> assertThat(t).startsWith("How late fires start"))
			.anySatisfy((t) -> assertThat(t).startsWith("Leader-only guard cost"))
			.anySatisfy((t) -> assertThat(t).startsWith("Database load"))
			.anySatisfy((t) -> assertThat(t).startsWith("Failover latency"))
			.anySatisfy((t) -> assertThat(t).startsWith("Scale"))
			.anySatisfy((t) -> assertThat(t).startsWith("Graceful hand-over"))
			.anySatisfy((t) -> assertThat(t).startsWith("Partitions"))
			.anySatisfy((t) -> assertThat(t).startsWith("Database load on PostgreSQL"))
			.anySatisfy((t) -> assertThat(t).startsWith("Failover latency on PostgreSQL"))
			.anySatisfy((t) -> assertThat(t).startsWith("Partitions in parallel"))
			.anySatisfy((t) -> assertThat(t).startsWith("One idle node"))
			.anySatisfy((t) -> assertThat(t).startsWith("How the cost grows"))
			.anySatisfy((t) -> assertThat(t).startsWith("Scheduled fires"))
			.anySatisfy((t) -> assertThat(t).startsWith("Fenced transactions on PostgreSQL"));
		assertThat(tables.get(12).rows()).as("no transactions, unfenced, three fences")
			.hasSize(5)
			.allSatisfy((row) -> assertThat(Integer.parseInt(row.get(5))).as("renewals").isPositive());
		assertThat(tables.get(11).rows()).as("ours without jobs, RECORDED, STRICT, ShedLock")
			.hasSize(4)
			.allSatisfy((row) -> assertThat(Double.parseDouble(row.get(1))).as("commands per node per minute")
				.isPositive());
		assertThat(tables.get(11).rows().get(1).get(5)).as("RECORDED: no fire ran twice").isEqualTo("0");
		assertThat(tables.get(10).rows()).as("3 x 16").singleElement().satisfies((row) -> {
			assertThat(row.get(2).split(";")[0]).as("placed").endsWith(" s").doesNotContain("not");
			assertThat(Integer.parseInt(row.get(7).replace(",", ""))).as("roster bytes").isPositive();
			assertThat(row.get(10)).as("overlapping owners").isEqualTo("0");
		});
		assertThat(tables.get(9).rows()).as("without, with, the difference, the store calls alone")
			.hasSize(4)
			.last()
			.satisfies((row) -> assertThat(row.get(0)).startsWith("its two store calls alone"));
		assertThat(tables.get(6).rows()).as("ours, ShedLock and Spring Integration on PostgreSQL")
			.hasSize(3)
			.allSatisfy((row) -> assertThat(Double.parseDouble(row.get(2))).as("statements per node per minute")
				.isPositive());

		List<List<String>> guard = tables.get(0).rows();
		assertThat(row(guard, GuardBenchmark.LEADER_ONLY_LEADER).get(4)).as("driver commands per @LeaderOnly call")
			.isEqualTo("0.00");
		assertThat(row(guard, GuardBenchmark.LEADER_ONLY_FOLLOWER).get(4)).isEqualTo("0.00");
		assertThat(Double.parseDouble(row(guard, GuardBenchmark.SHEDLOCK_FREE).get(4)))
			.as("ShedLock takes and releases its lock in the database")
			.isGreaterThan(0);

		assertThat(tables.get(1).rows()).hasSize(2)
			.allSatisfy((row) -> assertThat(Double.parseDouble(row.get(2))).as("our commands per node per minute")
				.isPositive());
		// every library elected a new leader after each kind of failover, and the row
		// says how long it took
		assertThat(tables.get(2).rows()).hasSize(6)
			.allSatisfy((row) -> assertThat(Double.parseDouble(row.get(3))).isPositive());
		// the ten nodes converged, were counted, and a join and a crash showed everywhere
		assertThat(tables.get(3).rows()).hasSize(1).allSatisfy((row) -> {
			assertThat(row.get(2)).as("all list all live after").endsWith(" s").doesNotContain("not");
			assertThat(Double.parseDouble(row.get(4))).as("commands per node per interval").isPositive();
			assertThat(row.get(9)).as("join").doesNotContain("not").isNotEqualTo("-");
			assertThat(row.get(10)).as("crash").doesNotContain("not").isNotEqualTo("-");
		});
		// a hand-over on each web stack, each on the server it should run on
		assertThat(tables.get(4).rows()).extracting((row) -> row.get(0) + " " + row.get(1))
			.containsExactly("servlet TomcatWebServer", "reactive NettyWebServer");
		assertThat(tables.get(4).rows()).allSatisfy((row) -> assertThat(Double.parseDouble(row.get(3))).isPositive());
		// three nodes placed, balanced, and balanced again after a join, a graceful leave
		// and a crash
		assertThat(tables.get(5).rows()).hasSize(1).allSatisfy((row) -> {
			assertThat(row.get(2)).as("placed").endsWith(" s");
			assertThat(row.get(5)).as("joins").startsWith("worst ").doesNotContain("not");
			assertThat(row.get(6)).as("leave").doesNotContain("not");
			assertThat(row.get(7)).as("crash").doesNotContain("not");
			// overlapping beliefs on one clock, then (in brackets) samples that showed
			// two owners
			assertThat(row.get(9)).as("overlapping beliefs").startsWith("0 (");
			assertThat(row.get(10)).as("graceful hand-off per partition").endsWith(")").contains(" ms (");
			assertThat(row.get(11)).as("rolling restart").contains(" s; ").doesNotContain("not");
		});
		assertThat(printed.toString(StandardCharsets.UTF_8)).contains("### Scale");
	}

	private static List<String> row(List<List<String>> rows, String first) {
		return rows.stream().filter((r) -> r.get(0).equals(first)).findFirst().orElseThrow();
	}

}
