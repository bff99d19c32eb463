// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.28;

/// @title Counter: the target of the local chain's test calls (test-support/chain).
/// @notice `fail()` always reverts with "Counter: fail", for tests of reverted calls.
contract Counter {
    /// @notice The current count.
    uint256 public number;

    /// @notice Emitted on every change, with the caller and the new count.
    event Changed(address indexed by, uint256 number);

    /// @notice Adds one.
    function increment() external {
        number += 1;
        emit Changed(msg.sender, number);
    }

    /// @notice Adds `amount`.
    function add(uint256 amount) external {
        number += amount;
        emit Changed(msg.sender, number);
    }

    /// @notice Always reverts with the reason "Counter: fail".
    function fail() external pure {
        revert("Counter: fail");
    }
}
