package dev.membership.operations;

import java.util.List;

/**
 * This node's drain after a drain or an undrain.
 *
 * @param nodeId this node
 * @param drained whether it is drained now
 * @param handingOver what the drain hands over: the plain groups it led and its
 * partitions ({@code tenants#3})
 */
public record DrainResult(String nodeId, boolean drained, List<String> handingOver) {

	public DrainResult {
		handingOver = List.copyOf(handingOver);
	}

}
