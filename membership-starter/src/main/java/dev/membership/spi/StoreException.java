package dev.membership.spi;

/**
 * The store could not be reached or did not answer in time. The node treats it as
 * transient and retries.
 * <p>
 * {@link #isRetryable() Retryable}: the store may have applied the operation or not, and
 * says that reissuing it at once may get through (MongoDB: an error labelled
 * {@code RetryableWriteError}, a "not primary" answer, a network error, as in a primary's
 * step-down). The node then reissues once the writes its drivers do not retry themselves
 * ({@link MembershipStore#renewAll}, {@link MembershipStore#releaseAll}), which are safe
 * to apply twice. A timeout is not retryable: the time for the call is spent.
 */
public class StoreException extends RuntimeException {

	private final boolean retryable;

	public StoreException(String message, Throwable cause) {
		this(message, cause, false);
	}

	public StoreException(String message, Throwable cause, boolean retryable) {
		super(message, cause);
		this.retryable = retryable;
	}

	/**
	 * Whether reissuing the operation at once may get through (it may have applied, too).
	 */
	public boolean isRetryable() {
		return this.retryable;
	}

	/** Whether {@code failure} is a {@link StoreException} that says so. */
	public static boolean isRetryable(Throwable failure) {
		return failure instanceof StoreException store && store.isRetryable();
	}

}
