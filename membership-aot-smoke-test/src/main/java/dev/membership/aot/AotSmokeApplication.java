package dev.membership.aot;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import dev.membership.leadership.LeaderContext;
import dev.membership.scheduling.LeaderOnly;

/**
 * The smallest application a user writes with the starter: a leader-only scheduled job,
 * and its runs over HTTP.
 */
@SpringBootApplication
@EnableScheduling
public class AotSmokeApplication {

	public static void main(String[] args) {
		SpringApplication.run(AotSmokeApplication.class, args);
	}

	/** Proxied for {@code @LeaderOnly}: read through its methods, not its fields. */
	@Component
	public static class Report {

		private final AtomicLong runs = new AtomicLong();

		private volatile long epoch;

		public long runs() {
			return this.runs.get();
		}

		public long epoch() {
			return this.epoch;
		}

		@LeaderOnly
		@Scheduled(fixedDelay = 100)
		void run() {
			this.epoch = LeaderContext.currentTerm().epoch();
			this.runs.incrementAndGet();
		}

	}

	@RestController
	static class Runs {

		private final Report report;

		Runs(Report report) {
			this.report = report;
		}

		@GetMapping("/runs")
		Map<String, Long> runs() {
			return Map.of("runs", this.report.runs(), "epoch", this.report.epoch());
		}

	}

}
