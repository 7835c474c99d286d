package dev.membership.sample.embedded;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.context.aot.AbstractAotProcessor;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ahead-of-time processing runs the application's environment post-processors but never
 * the application: the embedded database must not start then (it did, and its threads
 * kept {@code spring-boot:process-aot} from ever ending), while the properties that
 * decide conditions at build time are the same as at run time.
 */
class EmbeddedMongoAotTests {

	@AfterEach
	void clear() {
		System.clearProperty(AbstractAotProcessor.AOT_PROCESSING);
	}

	@Test
	void aheadOfTimeProcessingGetsThePropertiesButNoDatabase() throws IOException {
		int port = freePort();
		MockEnvironment environment = new MockEnvironment().withProperty("sample.embedded-mongo.port",
				String.valueOf(port));
		System.setProperty(AbstractAotProcessor.AOT_PROCESSING, "true");
		SpringApplication application = new SpringApplication();
		int initializers = application.getInitializers().size();
		int listeners = application.getListeners().size();
		new EmbeddedMongoEnvironmentPostProcessor(new DeferredLogs()).postProcessEnvironment(environment, application);
		assertThat(environment.getProperty("spring.mongodb.uri"))
			.isEqualTo("mongodb://127.0.0.1:" + port + "/membership-sample");
		assertThat(environment.getProperty("management.health.mongodb.enabled")).isEqualTo("false");
		assertThat(accepts(port)).as("a database listening on %d", port).isFalse();
		assertThat(application.getInitializers()).hasSize(initializers);
		assertThat(application.getListeners()).hasSize(listeners);
	}

	private static boolean accepts(int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
	}

}
