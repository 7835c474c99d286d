package dev.membership.bench.support;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.event.CommandListener;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

/**
 * The MongoDB wire-protocol stand-in on 127.0.0.1 and a free port; every library under
 * test talks to one of these.
 */
public final class EmbeddedMongoServer implements AutoCloseable {

	private final MongoServer server;

	private final String uri;

	public EmbeddedMongoServer() {
		this.server = new MongoServer(new MemoryBackend());
		int port = freePort();
		this.server.bind("127.0.0.1", port);
		this.uri = "mongodb://127.0.0.1:" + port;
	}

	/**
	 * {@code mongodb://127.0.0.1:port}, for clients configured by URI (a Spring Boot
	 * application's).
	 */
	public String uri() {
		return this.uri;
	}

	/**
	 * A client of its own, as a separate process would have, counting what it sends when
	 * given a listener.
	 */
	public MongoClient newClient(CommandListener... listeners) {
		MongoClientSettings.Builder settings = MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(this.uri))
			.applyToClusterSettings((c) -> c.serverSelectionTimeout(5, TimeUnit.SECONDS));
		for (CommandListener listener : listeners) {
			settings.addCommandListener(listener);
		}
		return MongoClients.create(settings.build());
	}

	@Override
	public void close() {
		this.server.shutdownNow();
	}

	public static int freePort() {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress("127.0.0.1", 0));
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
