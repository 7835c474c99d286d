package dev.membership.broadcast;

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
 * HMAC-SHA256 keys: the first signs, every one verifies (rotation: add the new key first, remove the old one once
 * every node has the new list). A key is named by a short hash of it, never by itself.
 */
public final class BroadcastKeyring {

	public static final int MIN_KEY_BYTES = 32;

	private static final String ALGORITHM = "HmacSHA256";

	private final String primaryId;

	private final Map<String, SecretKeySpec> keys = new LinkedHashMap<>();

	/**
	 * An initialized MAC per key, never used itself: each signature works on a clone, about a tenth of the cost of
	 * looking the algorithm up and initializing anew (measured cold, as a hand-over notice runs).
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

	/** Base64 HMAC of {@code body} with the primary key. */
	public String sign(byte[] body) {
		return Base64.getEncoder().encodeToString(mac(this.primaryId, body));
	}

	/** Whether {@code signature} is the HMAC of {@code body} under the key named {@code keyId}; constant time. */
	public boolean verify(String keyId, byte[] body, String signature) {
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
		return MessageDigest.isEqual(mac(keyId, body), given);
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

	private byte[] mac(String keyId, byte[] body) {
		Mac mac;
		try {
			mac = (Mac) this.prototypes.get(keyId).clone(); // the prototype is only read: safe from any thread
		}
		catch (CloneNotSupportedException ex) {
			mac = newMac(this.keys.get(keyId)); // a provider whose MAC cannot be cloned
		}
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
