package dev.membership.testsupport;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The MongoDB wire-protocol stand-in on 127.0.0.1 and a free port, which can be taken
 * down and brought back on the same port with its data (a database outage). As a static
 * {@code @RegisterExtension} field it closes after the class, and starts again before the
 * next one that shares the field (a subclass that runs the same tests on another stack).
 */
public final class EmbeddedMongo implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

	private final MongoBackend data = new MemoryBackend();

	/**
	 * The server closes its backend on shutdown; an outage must not lose the data, so
	 * close() is ignored.
	 */
	private final MongoBackend backend = (MongoBackend) Proxy.newProxyInstance(MongoBackend.class.getClassLoader(),
			new Class<?>[] { MongoBackend.class }, (proxy, method, args) -> {
				if (method.getName().equals("close") && method.getParameterCount() == 0) {
					return null;
				}
				try {
					return method.invoke(this.data, args);
				}
				catch (InvocationTargetException ex) {
					throw ex.getCause();
				}
			});

	private final int port;

	private MongoServer server;

	public EmbeddedMongo() {
		this.port = freePort();
		start();
	}

	public synchronized void start() {
		if (this.server == null) {
			MongoServer s = new MongoServer(this.backend);
			s.bind("127.0.0.1", this.port);
			this.server = s;
		}
	}

	/**
	 * Stops listening and drops every open connection; the data stays for
	 * {@link #start()}.
	 */
	public synchronized void stop() {
		if (this.server != null) {
			// closes client connections too; the backend (the data) stays
			this.server.shutdownNow();
			this.server = null;
		}
	}

	public boolean isRunning() {
		return this.server != null;
	}

	/**
	 * A cluster of plain-Java nodes on this server, each with a client of its own (as
	 * separate processes have), closed with the cluster.
	 */
	public TestCluster cluster() {
		java.util.List<MongoClient> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
		return new TestCluster(new TestCluster.Stores() {

			@Override
			public dev.membership.spi.MembershipStore create(String namespace) {
				MongoClient client = newClient();
				clients.add(client);
				return dev.membership.mongo.MongoStores.create(client.getDatabase("membership"), namespace,
						TestCluster.OPERATION_TIMEOUT);
			}

			@Override
			public void close() {
				clients.forEach(MongoClient::close);
			}

		});
	}

	public int port() {
		return this.port;
	}

	public String uri() {
		return "mongodb://127.0.0.1:" + this.port;
	}

	/** A client with short timeouts so that tests see an outage quickly. */
	public MongoClient newClient() {
		return MongoClients.create(MongoClientSettings.builder()
			.applyConnectionString(new ConnectionString(uri()))
			.applyToClusterSettings((c) -> c.serverSelectionTimeout(2, TimeUnit.SECONDS))
			.applyToSocketSettings((s) -> s.connectTimeout(500, TimeUnit.MILLISECONDS))
			.build());
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		start();
	}

	@Override
	public void afterAll(ExtensionContext context) {
		close();
	}

	@Override
	public synchronized void close() {
		if (this.server != null) {
			this.server.shutdownNow();
			this.server = null;
		}
		this.data.close();
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
