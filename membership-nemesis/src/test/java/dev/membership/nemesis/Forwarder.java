package dev.membership.nemesis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The database's address on the nodes' bridge: relays each connection to the server on
 * 127.0.0.1, and delays what it relays for a node when told to (a delay and a jitter,
 * order kept). This machine's kernel has no {@code netem}, so a link's delay is made
 * here; a cut or a loss is the kernel's ({@link Network}).
 */
final class Forwarder implements AutoCloseable {

	/** A delay and its jitter, in milliseconds. */
	private record Delay(int millis, int jitter) {
	}

	final int port;

	private final ServerSocket server;

	private volatile int target;

	private final Map<String, Delay> delays = new ConcurrentHashMap<>();

	private final CopyOnWriteArrayList<Socket> sockets = new CopyOnWriteArrayList<>();

	private final Random random = new Random();

	Forwarder(String address, int target) throws IOException {
		this.target = target;
		this.server = new ServerSocket();
		this.server.bind(new InetSocketAddress(InetAddress.getByName(address), 0));
		this.port = this.server.getLocalPort();
		Thread accept = new Thread(this::accept, "forwarder");
		accept.setDaemon(true);
		accept.start();
	}

	/** What node {@code address} sends and receives is delayed from now on. */
	void delay(String address, int millis, int jitter) {
		this.delays.put(address, new Delay(millis, jitter));
	}

	void heal(String address) {
		this.delays.remove(address);
	}

	/** New connections go to {@code port} from now on: a failover's new primary. */
	void retarget(int port) {
		this.target = port;
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket("127.0.0.1", this.target);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(upstream);
				String node = client.getInetAddress().getHostAddress();
				pump(node, client, upstream);
				pump(node, upstream, client);
			}
			catch (IOException ex) {
				// closed, or the server refused: the node sees its connection fail
			}
		}
	}

	private void pump(String node, Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16384];
			long last = 0;
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
					Delay delay = this.delays.get(node);
					if (delay != null) {
						long due = System.nanoTime() + TimeUnit.MILLISECONDS
							.toNanos(delay.millis() + ((delay.jitter() > 0) ? this.random.nextInt(delay.jitter()) : 0));
						// in order: never before the bytes ahead of these
						last = Math.max(last, due);
						long wait = last - System.nanoTime();
						if (wait > 0) {
							TimeUnit.NANOSECONDS.sleep(wait);
						}
					}
					out.write(buffer, 0, n);
					out.flush();
				}
			}
			catch (IOException | InterruptedException ex) {
				// either side went away
			}
			finally {
				close(from);
				close(to);
			}
		}, "forward-" + node);
		thread.setDaemon(true);
		thread.start();
	}

	private void close(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closed already
		}
		this.sockets.remove(socket);
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		this.sockets.forEach(this::close);
	}

}
