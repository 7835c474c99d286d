package dev.membership.spi;

/**
 * The store could not be reached or did not answer in time. The node treats it as transient and retries.
 */
public class StoreException extends RuntimeException {

	public StoreException(String message, Throwable cause) {
		super(message, cause);
	}

}
