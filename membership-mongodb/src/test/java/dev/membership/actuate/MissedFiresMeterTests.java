package dev.membership.actuate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.data.mongodb.autoconfigure.DataMongoAutoConfiguration;
import org.springframework.boot.mongodb.autoconfigure.MongoAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.membership.Membership;
import dev.membership.autoconfigure.LeaderOnlyAutoConfiguration;
import dev.membership.autoconfigure.MembershipAutoConfiguration;
import dev.membership.autoconfigure.MembershipMetricsAutoConfiguration;
import dev.membership.leadership.MissedFires;
import dev.membership.mongo.autoconfigure.MembershipMongoAutoConfiguration;
import dev.membership.scheduling.LeaderOnly;
import dev.membership.testsupport.EmbeddedMongo;
import dev.membership.testsupport.FastPolling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code membership.runs.missed} counts the fires a new leader finds missed, from zero
 * for every scheduled job (a series that first appears at its count shows no
 * {@code increase()}), and the scheduled-jobs guide's alert fires on what a node exports:
 * its rule, taken from the guide, run through {@code promtool test rules} (Debian's
 * {@code prometheus}; with {@code MEMBERSHIP_REQUIRE_PROMTOOL} set the test fails rather
 * than skips without it). Before: the node passed every metrics callback to the meters
 * but this one, and the counter never existed.
 */
@ExtendWith(FastPolling.class)
class MissedFiresMeterTests {

	@RegisterExtension
	static final EmbeddedMongo mongo = new EmbeddedMongo();

	private static final Path GUIDE = Path.of("..", "docs", "guides", "scheduled-jobs.md");

	private static final String JOB = "ticker#tick";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(MongoAutoConfiguration.class, DataMongoAutoConfiguration.class,
				MembershipMongoAutoConfiguration.class, MembershipAutoConfiguration.class,
				MembershipMetricsAutoConfiguration.class, LeaderOnlyAutoConfiguration.class,
				TaskSchedulingAutoConfiguration.class))
		.withUserConfiguration(Ticking.class)
		.withPropertyValues("spring.mongodb.uri=" + mongo.uri() + "/missed-fires", "membership.node-id=n1",
				"membership.advertised-address=127.0.0.1:9011", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms");

	@Test
	void missedFiresAreCountedFromZeroAndTheGuidesAlertFiresOnThem(@TempDir Path dir) throws Exception {
		// a first leader runs the job and hands its last fire on with its release
		Instant[] last = new Instant[1];
		this.runner.run((context) -> {
			Ticking ticking = context.getBean(Ticking.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> ticking.fires.size() >= 2);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(2))
				.ignoreExceptions()
				.until(() -> registry.get("membership.runs.missed")
					.tags("group", "default", "job", JOB)
					.counter() != null);
			assertThat(registry.get("membership.runs.missed").tags("group", "default", "job", JOB).counter().count())
				.as("present at zero before any fire is missed")
				.isZero();
			last[0] = ticking.fires.get(ticking.fires.size() - 1);
		});
		// its successor comes more than a period later: with missed = SKIP, each fire
		// in between is missed
		await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(last[0].plusSeconds(1)));
		String[] scraped = new String[1];
		this.runner.run((context) -> {
			Membership membership = context.getBean(Membership.class);
			await().atMost(Duration.ofSeconds(5)).until(() -> membership.isLeader("default"));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5))
				.ignoreExceptions()
				.until(() -> registry.get("membership.runs.missed")
					.tags("group", "default", "job", JOB)
					.counter()
					.count() >= 3);
			scraped[0] = context.getBean(PrometheusMeterRegistry.class).scrape();
		});
		Matcher line = Pattern.compile("membership_runs_missed_total\\{group=\"default\",job=\"ticker#tick\"} (\\S+)")
			.matcher(scraped[0]);
		assertThat(line.find()).as(scraped[0]).isTrue();
		long missed = (long) Double.parseDouble(line.group(1));
		assertThat(missed).isGreaterThanOrEqualTo(3);
		alertFires(dir, missed);
	}

	/**
	 * The guide's rule, on the series a scrape of this node makes (Prometheus renames the
	 * meter's {@code job} tag {@code exported_job}): from zero to {@code missed}, it
	 * fires for the job.
	 */
	private static void alertFires(Path dir, long missed) throws IOException, InterruptedException {
		if (System.getenv("MEMBERSHIP_REQUIRE_PROMTOOL") == null) {
			assumeTrue(Files.isExecutable(Path.of("/usr/bin/promtool")), "Debian's prometheus is not installed");
		}
		Matcher block = Pattern.compile("<!-- alert:missed-fires -->\\s*```yaml\\n(.*?)```", Pattern.DOTALL)
			.matcher(Files.readString(GUIDE));
		assertThat(block.find()).as("the guide's alert").isTrue();
		Files.writeString(dir.resolve("rules.yml"), block.group(1));
		String series = "membership_runs_missed_total{exported_job=\"" + JOB
				+ "\",group=\"default\",instance=\"127.0.0.1:9011\",job=\"orders\"}";
		Files.writeString(dir.resolve("test.yml"), String.join("\n", "rule_files: [rules.yml]",
				"evaluation_interval: 1m", "tests:", "  - interval: 1m", "    input_series:",
				"      - series: '" + series + "'", "        values: '0 0 0 " + missed + " " + missed + "'",
				"    alert_rule_test:", "      - eval_time: 2m", "        alertname: MembershipFiresMissed",
				"        exp_alerts: []", "      - eval_time: 4m", "        alertname: MembershipFiresMissed",
				"        exp_alerts:",
				"          - exp_labels: {severity: warning, group: default, exported_job: '" + JOB + "'}",
				"            exp_annotations:",
				"              summary: 'Job " + JOB + " of group default missed fires'",
				"              description: 'The run history (GET /actuator/cluster/runs) says which fires, and why.'",
				""));
		Process promtool = new ProcessBuilder("promtool", "test", "rules", "test.yml").directory(dir.toFile())
			.redirectErrorStream(true)
			.start();
		assertThat(promtool.waitFor(30, TimeUnit.SECONDS)).isTrue();
		String out = new String(promtool.getInputStream().readAllBytes());
		assertThat(promtool.exitValue()).as(out).isZero();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Ticking {

		final List<Instant> fires = new CopyOnWriteArrayList<>();

		@Bean
		Ticker ticker() {
			return new Ticker(this.fires);
		}

		@Bean
		PrometheusMeterRegistry prometheusMeterRegistry() {
			return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
		}

	}

	static class Ticker {

		private final List<Instant> fires;

		Ticker(List<Instant> fires) {
			this.fires = fires;
		}

		@LeaderOnly(missed = MissedFires.SKIP)
		@Scheduled(fixedRate = 200)
		public void tick() {
			this.fires.add(dev.membership.leadership.LeaderContext.currentFire().orElseThrow());
		}

	}

}
