package dev.membership.broadcast;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 keys: the first signs, every one verifies. A signature covers the
 * recipient's node id with the body (the body names the topic, sender, id and time), so a
 * message is accepted only by the node it was sent to: a captured notice cannot be
 * replayed to another node. Rotation without a refused message: add the new key after the
 * others (every node accepts it, none signs with it), then, once every node has it, put
 * it first (it signs), then remove the old one once every node has that list. A key is
 * named by a short hash of it, never by itself.
 */
public final class BroadcastKeyring {

	public static final int MIN_KEY_BYTES = 32;

	private static final String ALGORITHM = "HmacSHA256";

	private final String primaryId;

	private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();

	/**
	 * An initialized MAC per key, never used itself: each signature works on a clone,
	 * about a tenth of the cost of looking the algorithm up and initializing anew
	 * (measured cold, as a hand-over notice runs).
	 */
	private final Map<String, Mac> prototypes = new LinkedHashMap<>();

	public BroadcastKeyring(List<byte[]> secrets) {
		if (secrets.isEmpty()) {
			throw new IllegalArgumentException("At least one broadcast key is needed");
		}
		for (byte[] secret : secrets) {
			if (secret.length < MIN_KEY_BYTES) {
				throw new IllegalArgumentException("A broadcast key needs at least " + MIN_KEY_BYTES + " bytes");
			}
			SecretKeySpec key = new SecretKeySpec(secret, ALGORITHM);
			this.keys.put(idOf(secret), key);
			this.prototypes.put(idOf(secret), newMac(key));
		}
		this.primaryId = idOf(secrets.get(0));
	}

	public static BroadcastKeyring ofStrings(List<String> secrets) {
		List<byte[]> bytes = new ArrayList<>();
		secrets.forEach((s) -> bytes.add(s.getBytes(StandardCharsets.UTF_8)));
		return new BroadcastKeyring(bytes);
	}

	public String primaryKeyId() {
		return this.primaryId;
	}

	/**
	 * Base64 HMAC, with the primary key, of {@code body} for the node {@code recipient}
	 * alone.
	 */
	public String sign(String recipient, byte[] body) {
		return Base64.getEncoder().encodeToString(mac(this.primaryId, recipient, body));
	}

	/**
	 * Whether {@code signature} is the HMAC of {@code body} for {@code recipient} (this
	 * node) under the key named {@code keyId}; constant time.
	 */
	public boolean verify(String keyId, String recipient, byte[] body, String signature) {
		SecretKeySpec key = this.keys.get(keyId);
		if (key == null || signature == null) {
			return false;
		}
		byte[] given;
		try {
			given = Base64.getDecoder().decode(signature);
		}
		catch (IllegalArgumentException ex) {
			return false;
		}
		return MessageDigest.isEqual(mac(keyId, recipient, body), given);
	}

	static String idOf(byte[] secret) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret);
			return HexFormat.of().formatHex(digest, 0, 8);
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The HMAC of the recipient's UTF-8 bytes, after their count (4 bytes, big-endian),
	 * then the body.
	 */
	private byte[] mac(String keyId, String recipient, byte[] body) {
		Mac mac;
		try {
			// the prototype is only read: safe from any thread
			mac = (Mac) this.prototypes.get(keyId).clone();
		}
		catch (CloneNotSupportedException ex) {
			mac = newMac(this.keys.get(keyId)); // a provider whose MAC cannot be cloned
		}
		byte[] to = recipient.getBytes(StandardCharsets.UTF_8);
		mac.update(ByteBuffer.allocate(4).putInt(to.length).array());
		mac.update(to);
		return mac.doFinal(body);
	}

	private static Mac newMac(SecretKeySpec key) {
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(key);
			return mac;
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
