package dev.membership.sample.embedded;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.stereotype.Component;

/**
 * In standalone mode, keeps the process (and its embedded database) alive until it is
 * stopped.
 */
@Component
@ConditionalOnExpression("${sample.embedded-mongo.standalone:false} or ${sample.embedded-postgres.standalone:false}")
class StandaloneDatabase implements ApplicationRunner {

	private static final Logger log = LoggerFactory.getLogger(StandaloneDatabase.class);

	private final EmbeddedDatabase server;

	StandaloneDatabase(EmbeddedDatabase server) {
		this.server = server;
	}

	@Override
	public void run(ApplicationArguments args) {
		log.info("Standalone embedded database at {}: no membership, no web server. Stop it with Ctrl-C.",
				this.server.description());
		Thread keepAlive = new Thread(() -> {
			try {
				this.server.awaitStop();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}, "standalone-database");
		keepAlive.setDaemon(false);
		keepAlive.start();
	}

}
