package dev.membership.sample;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;

import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistrar;

/**
 * The sample's own data (items, runs) in an embedded stand-in on 127.0.0.1 and a free
 * port, one per application context: import {@link InContext}, and it starts with the
 * context and closes with it, after the scheduler has stopped (a database closed under a
 * running context makes its jobs wait out the driver's timeouts at shutdown).
 */
public final class TestDatabase implements AutoCloseable {

	private final MongoServer server = new MongoServer(H2Backend.inMemory());

	private final String uri;

	public TestDatabase() {
		this.server.bind("127.0.0.1", 0);
		this.uri = "mongodb://127.0.0.1:" + this.server.getLocalAddress().getPort() + "/sample";
	}

	public String uri() {
		return this.uri;
	}

	@Override
	public void close() {
		this.server.shutdownNow();
	}

	@TestConfiguration(proxyBeanMethods = false)
	public static class InContext {

		@Bean(destroyMethod = "close")
		TestDatabase testDatabase() {
			return new TestDatabase();
		}

		@Bean
		DynamicPropertyRegistrar testDatabaseUri(TestDatabase database) {
			return (registry) -> registry.add("spring.mongodb.uri", database::uri);
		}

	}

}
