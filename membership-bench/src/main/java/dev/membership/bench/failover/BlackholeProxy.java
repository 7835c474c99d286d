package dev.membership.bench.failover;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP forwarder on 127.0.0.1 between one client and its server that can go dark at
 * once: every connection is cut and no new one is accepted, as when the client's host
 * dies. The server keeps the client's session until it times out, which is what a crash
 * looks like to a ZooKeeper ensemble.
 */
final class BlackholeProxy implements AutoCloseable {

	private final ServerSocket listener;

	private final int targetPort;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile boolean dark;

	BlackholeProxy(int targetPort) throws IOException {
		this.targetPort = targetPort;
		this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "blackhole-proxy-" + this.listener.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	int port() {
		return this.listener.getLocalPort();
	}

	private void accept() {
		while (!this.dark) {
			try {
				Socket client = this.listener.accept();
				Socket upstream = new Socket();
				upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.targetPort), 2000);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(upstream);
				if (this.dark) {
					closeAll();
					return;
				}
				pump(client, upstream);
				pump(upstream, client);
			}
			catch (IOException ex) {
				if (this.dark) {
					return;
				}
			}
		}
	}

	private void pump(Socket from, Socket to) {
		Thread t = new Thread(() -> {
			byte[] buffer = new byte[8192];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int n;
				while (!this.dark && (n = in.read(buffer)) >= 0) {
					out.write(buffer, 0, n);
					out.flush();
				}
			}
			catch (IOException ex) {
				// cut
			}
			finally {
				close(from);
				close(to);
			}
		}, "blackhole-pump");
		t.setDaemon(true);
		t.start();
	}

	/** The client's host is gone: nothing reaches the server from it any more. */
	void goDark() {
		this.dark = true;
		try {
			this.listener.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		closeAll();
	}

	private void closeAll() {
		this.sockets.forEach(BlackholeProxy::close);
	}

	private static void close(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	@Override
	public void close() {
		goDark();
	}

}
