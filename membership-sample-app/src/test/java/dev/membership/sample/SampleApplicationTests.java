package dev.membership.sample;

import java.time.Duration;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.membership.Membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "membership.advertised-address=127.0.0.1:0", "membership.renewal-interval=100ms",
				"membership.lease-duration=500ms", "membership.liveness-window=300ms" })
class SampleApplicationTests {

	private static final MongoServer mongo = new MongoServer(new MemoryBackend());

	private static final String uri = bind();

	private static String bind() {
		mongo.bind("127.0.0.1", 0);
		return "mongodb://127.0.0.1:" + mongo.getLocalAddress().getPort() + "/sample";
	}

	@DynamicPropertySource
	static void mongo(DynamicPropertyRegistry registry) {
		registry.add("spring.mongodb.uri", () -> uri);
	}

	@AfterAll
	static void stop() {
		mongo.shutdownNow();
	}

	@Autowired
	private Membership membership;

	@Test
	void theSingleNodeLeads() {
		await().atMost(Duration.ofSeconds(5)).until(() -> this.membership.isLeader("default"));
		assertThat(this.membership.liveMembers()).hasSize(1);
	}

}
