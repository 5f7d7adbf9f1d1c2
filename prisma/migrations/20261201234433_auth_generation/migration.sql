-- CreateTable
CREATE TABLE "auth_generation" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "generation" TEXT NOT NULL,
    "restored_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "auth_generation_pkey" PRIMARY KEY ("id")
);
