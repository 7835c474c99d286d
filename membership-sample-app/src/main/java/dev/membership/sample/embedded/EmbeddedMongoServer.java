package dev.membership.sample.embedded;

import java.io.File;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The embedded test database (mongo-java-server on its H2 file backend) of this process,
 * or a handle on another's.
 */
public final class EmbeddedMongoServer extends EmbeddedDatabase {

	private final @Nullable MongoServer server;

	private EmbeddedMongoServer(@Nullable MongoServer server, String description) {
		super(description);
		this.server = server;
	}

	static EmbeddedMongoServer startOrJoin(int port, String directory, Log log) {
		if (accepts(port)) {
			return joined(port, log);
		}
		File dir = new File(directory);
		dir.mkdirs();
		MongoServer server = new MongoServer(new H2Backend(new File(dir, "membership-sample.mv").getAbsolutePath()));
		try {
			server.bind("127.0.0.1", port);
			log.info("Started the embedded test database on 127.0.0.1:" + port);
			return new EmbeddedMongoServer(server, "127.0.0.1:" + port);
		}
		catch (Exception ex) { // Netty rethrows the checked BindException undeclared
			server.shutdownNow();
			return joined(port, log); // lost a race with another sample process
		}
	}

	private static EmbeddedMongoServer joined(int port, Log log) {
		log.info("Port 127.0.0.1:" + port + " is taken: joining the embedded test database already running there");
		return new EmbeddedMongoServer(null, "127.0.0.1:" + port + " (joined)");
	}

	@Override
	void shutdown() {
		if (this.server != null) {
			// closes the H2 store cleanly, so its data survives a restart
			this.server.shutdown();
		}
	}

}
