package dev.membership.broadcast;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;

import org.jspecify.annotations.Nullable;

/**
 * Posts one signed message (a hand-over notice, an operator's command) to one member on
 * the JDK's plain connection and reads its answer, so that the kept-alive connection is
 * used again, bounded by the broadcast's connect and read timeouts and its largest body.
 * Retries are the caller's.
 */
final class SignedPost {

	private final BroadcastSettings settings;

	SignedPost(BroadcastSettings settings) {
		this.settings = settings;
	}

	/** The member's answer: its status, body and the headers that sign it. */
	record Reply(int status, byte[] body, @Nullable String keyId, @Nullable String signature) {
	}

	Reply post(URI uri, byte[] body, String keyId, String signature) throws IOException {
		HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
		connection.setConnectTimeout((int) this.settings.connectTimeout().toMillis());
		connection.setReadTimeout((int) this.settings.readTimeout().toMillis());
		connection.setInstanceFollowRedirects(false);
		connection.setDoOutput(true);
		connection.setRequestMethod("POST");
		connection.setRequestProperty("Content-Type", "application/json");
		connection.setRequestProperty(BroadcastSettings.KEY_ID_HEADER, keyId);
		connection.setRequestProperty(BroadcastSettings.SIGNATURE_HEADER, signature);
		connection.setFixedLengthStreamingMode(body.length);
		try (OutputStream out = connection.getOutputStream()) {
			out.write(body);
		}
		int status = connection.getResponseCode();
		byte[] answer;
		try (InputStream in = (status < 400) ? connection.getInputStream() : connection.getErrorStream()) {
			answer = (in != null) ? in.readNBytes((int) Math.min(Integer.MAX_VALUE, this.settings.maxBodySize()))
					: new byte[0];
		}
		return new Reply(status, answer, connection.getHeaderField(BroadcastSettings.KEY_ID_HEADER),
				connection.getHeaderField(BroadcastSettings.SIGNATURE_HEADER));
	}

}
