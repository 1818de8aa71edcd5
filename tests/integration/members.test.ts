import { describe, expect, it } from "vitest";
import { changeMemberRole, listMembers, removeMember } from "../../lib/workspaces/members";
import { makeUser, makeWorkspace } from "../support/fixtures";
import { useTestServer } from "../support/server";

describe("members", () => {
  const server = useTestServer();

  it("a manager cannot grant the owner role nor touch an owner; only owners can", async () => {
    const { db } = server();
    const owner = await makeUser(db);
    const ws = await makeWorkspace(db, "Gamma", owner);
    const manager = await makeUser(db, ws.id, "manager");
    const member = await makeUser(db, ws.id, "member");
    const asManager = { userId: manager.id, role: "manager" as const };
    await expect(changeMemberRole(db, ws.id, asManager, member.id, "owner")).rejects.toMatchObject({ code: "forbidden:role" });
    await expect(changeMemberRole(db, ws.id, asManager, owner.id, "member")).rejects.toMatchObject({ code: "forbidden:role" });
    await expect(removeMember(db, ws.id, asManager, owner.id)).rejects.toMatchObject({ code: "forbidden:role" });
    expect((await changeMemberRole(db, ws.id, asManager, member.id, "reviewer")).role).toBe("reviewer");
    expect((await changeMemberRole(db, ws.id, { userId: owner.id, role: "owner" }, member.id, "owner")).role).toBe("owner");
  });

  it("the last owner can be neither demoted nor removed", async () => {
    const { db } = server();
    const owner = await makeUser(db);
    const ws = await makeWorkspace(db, "Delta", owner);
    const asOwner = { userId: owner.id, role: "owner" as const };
    await expect(changeMemberRole(db, ws.id, asOwner, owner.id, "manager")).rejects.toMatchObject({ code: "conflict:last_owner" });
    await expect(removeMember(db, ws.id, asOwner, owner.id)).rejects.toMatchObject({ code: "conflict:last_owner" });
    expect((await listMembers(db, ws.id))[0]?.role).toBe("owner");
  });

  it("a member of another workspace is not found here", async () => {
    const { db } = server();
    const owner = await makeUser(db);
    const ws = await makeWorkspace(db, "Epsilon", owner);
    const stranger = await makeUser(db);
    await makeWorkspace(db, "Elsewhere", stranger);
    await expect(changeMemberRole(db, ws.id, { userId: owner.id, role: "owner" }, stranger.id, "member")).rejects.toMatchObject({
      code: "not_found:member",
    });
    await expect(removeMember(db, ws.id, { userId: owner.id, role: "owner" }, "not-a-uuid")).rejects.toMatchObject({
      code: "not_found:member",
    });
  });
});
