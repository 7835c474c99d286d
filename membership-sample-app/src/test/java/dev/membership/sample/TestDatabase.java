package dev.membership.sample;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;

/** The sample's own data (items, runs) in an embedded stand-in on 127.0.0.1 and a free port, one per test class. */
public final class TestDatabase implements AutoCloseable {

	private final MongoServer server = new MongoServer(H2Backend.inMemory());

	private final String uri;

	public TestDatabase(String database) {
		this.server.bind("127.0.0.1", 0);
		this.uri = "mongodb://127.0.0.1:" + this.server.getLocalAddress().getPort() + "/" + database;
	}

	public String uri() {
		return this.uri;
	}

	@Override
	public void close() {
		this.server.shutdownNow();
	}

}
